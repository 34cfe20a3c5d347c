/** EndpointSlices (discovery.k8s.io): NAME ADDRESSTYPE PORTS ENDPOINTS AGE. */
import { ageColumn, column, nameColumn } from './columns.js';
import type { Printer } from './printer.js';
import { age } from './timestamps.js';

const SHOWN = 3;

/** The first three, then `+ N more...`; `<unset>` for none. */
function firstThree(values: string[]): string {
  const text = values.slice(0, SHOWN).join(',');
  if (values.length > SHOWN) return `${text} + ${values.length - SHOWN} more...`;
  return text === '' ? '<unset>' : text;
}

/** A port's number, else its name, else `*`. */
const portText = (port: any): string =>
  typeof port?.port === 'number' ? String(port.port) : typeof port?.name === 'string' ? port.name : '*';

export const endpointSlicePrinter: Printer = {
  columns: [
    nameColumn,
    column('AddressType', 'string', 'addressType specifies the type of address carried by this EndpointSlice.'),
    column('Ports', 'string', 'ports specifies the list of network ports exposed by each endpoint in this slice.'),
    column('Endpoints', 'string', 'endpoints is a list of unique endpoints in this slice.'),
    ageColumn,
  ],
  cells: (slice, now) => [
    slice.metadata?.name ?? '',
    slice.addressType ?? '',
    firstThree((slice.ports ?? []).map(portText)),
    firstThree((slice.endpoints ?? []).flatMap((endpoint: any) => endpoint?.addresses ?? [])),
    age(slice, now),
  ],
};
