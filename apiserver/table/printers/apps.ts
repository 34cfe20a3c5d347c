/** The apps/v1 workloads: deployments, replicasets, statefulsets and daemonsets. */
import { ageColumn, column, containersColumn, imagesColumn, nameColumn, wideColumn } from './columns.js';
import { containerCells } from './containers.js';
import { formatLabelSelector, formatLabels, selectorText } from './labels.js';
import type { Printer } from './printer.js';
import { age } from './timestamps.js';

const READY_DESCRIPTION = 'Number of the pod with ready state';

/** The API defaults `spec.replicas` to 1. */
const desiredReplicas = (workload: any): number => workload.spec?.replicas ?? 1;

/** A Deployment's selector column is empty, not `<none>`, when it selects everything. */
function deploymentSelector(selector: any): string {
  try {
    return selectorText(selector);
  } catch {
    return '<invalid>';
  }
}

/** NAME READY UP-TO-DATE AVAILABLE AGE, wide CONTAINERS IMAGES SELECTOR. */
export const deploymentPrinter: Printer = {
  columns: [
    nameColumn,
    column('Ready', 'string', READY_DESCRIPTION),
    column(
      'Up-to-date',
      'string',
      'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
    ),
    column(
      'Available',
      'string',
      'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
    ),
    ageColumn,
    containersColumn,
    imagesColumn,
    wideColumn('Selector', 'string'),
  ],
  cells(deploy, now) {
    const status = deploy.status ?? {};
    return [
      deploy.metadata?.name ?? '',
      `${status.readyReplicas ?? 0}/${desiredReplicas(deploy)}`,
      status.updatedReplicas ?? 0,
      status.availableReplicas ?? 0,
      age(deploy, now),
      ...containerCells(deploy.spec?.template?.spec),
      deploymentSelector(deploy.spec?.selector),
    ];
  },
};

/** NAME DESIRED CURRENT READY AGE, wide CONTAINERS IMAGES SELECTOR. */
export const replicaSetPrinter: Printer = {
  columns: [
    nameColumn,
    column('Desired', 'integer'),
    column('Current', 'integer'),
    column('Ready', 'integer'),
    ageColumn,
    containersColumn,
    imagesColumn,
    wideColumn('Selector', 'string'),
  ],
  cells(rs, now) {
    const status = rs.status ?? {};
    return [
      rs.metadata?.name ?? '',
      desiredReplicas(rs),
      status.replicas ?? 0,
      status.readyReplicas ?? 0,
      age(rs, now),
      ...containerCells(rs.spec?.template?.spec),
      formatLabelSelector(rs.spec?.selector),
    ];
  },
};

/** NAME READY AGE, wide CONTAINERS IMAGES. */
export const statefulSetPrinter: Printer = {
  columns: [nameColumn, column('Ready', 'string', READY_DESCRIPTION), ageColumn, containersColumn, imagesColumn],
  cells: (sts, now) => [
    sts.metadata?.name ?? '',
    `${sts.status?.readyReplicas ?? 0}/${desiredReplicas(sts)}`,
    age(sts, now),
    ...containerCells(sts.spec?.template?.spec),
  ],
};

/** NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE, wide CONTAINERS IMAGES SELECTOR. */
export const daemonSetPrinter: Printer = {
  columns: [
    nameColumn,
    column('Desired', 'integer'),
    column('Current', 'integer'),
    column('Ready', 'integer'),
    column('Up-to-date', 'integer'),
    column('Available', 'integer'),
    column('Node Selector', 'string'),
    ageColumn,
    containersColumn,
    imagesColumn,
    wideColumn('Selector', 'string'),
  ],
  cells(ds, now) {
    const status = ds.status ?? {};
    return [
      ds.metadata?.name ?? '',
      status.desiredNumberScheduled ?? 0,
      status.currentNumberScheduled ?? 0,
      status.numberReady ?? 0,
      status.updatedNumberScheduled ?? 0,
      status.numberAvailable ?? 0,
      formatLabels(ds.spec?.template?.spec?.nodeSelector),
      age(ds, now),
      ...containerCells(ds.spec?.template?.spec),
      formatLabelSelector(ds.spec?.selector),
    ];
  },
};
