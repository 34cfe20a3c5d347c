import { describeQuickBenchmarks } from './quick-run.js';

describeQuickBenchmarks('tenants');
