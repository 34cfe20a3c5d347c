/**
 * kube-apiserver 1.32's validation of a Service's type, ports and selector (ValidateService in
 * pkg/apis/core/validation), after the devcluster's defaults (type ClusterIP, protocol TCP,
 * targetPort = port, sessionAffinity None). IP families, external IPs and traffic policies are
 * not checked.
 */
import { isObject } from '../../json.js';
import { duplicate, forbidden, invalid, notSupported, required, type Cause } from '../cause.js';
import { isDNS1123Label } from '../names.js';
import { isValidPortNum, validateLabels, validatePortNumOrName } from '../values.js';

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const PORT_PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const SESSION_AFFINITIES = ['ClientIP', 'None'];
/** The kubelet's port, which a load balancer may not expose (kube's workaround for clouds that open firewalls too wide). */
const KUBELET_PORT = 10250;

export function validateService(service: Record<string, any>): Cause[] {
  const spec: Record<string, any> = isObject(service.spec) ? service.spec : {};
  const ports: Record<string, any>[] = Array.isArray(spec.ports) ? spec.ports.map((p) => (isObject(p) ? p : {})) : [];
  const headless = spec.clusterIP === 'None';
  const causes: Cause[] = [];
  if (ports.length === 0 && !headless && spec.type !== 'ExternalName') causes.push(required('spec.ports'));
  switch (spec.type) {
    case 'LoadBalancer':
      ports.forEach((port, i) => {
        if (port.port === KUBELET_PORT)
          causes.push(
            invalid(
              `spec.ports[${i}]`,
              port.port,
              `may not expose port ${KUBELET_PORT} externally since it is used by kubelet`,
            ),
          );
      });
      if (headless)
        causes.push(invalid('spec.clusterIP', 'None', "may not be set to 'None' for LoadBalancer services"));
      break;
    case 'NodePort':
      if (headless) causes.push(invalid('spec.clusterIP', 'None', "may not be set to 'None' for NodePort services"));
      break;
    case 'ExternalName':
      if (spec.clusterIP) causes.push(forbidden('spec.clusterIP', 'must be empty for ExternalName services'));
      if (!spec.externalName) causes.push(required('spec.externalName'));
      break;
  }
  const names = new Set<string>();
  const seen = new Set<string>();
  ports.forEach((port, i) => {
    const path = `spec.ports[${i}]`;
    const name = typeof port.name === 'string' ? port.name : '';
    if (ports.length > 1 && !name) causes.push(required(`${path}.name`));
    else if (name) {
      causes.push(...isDNS1123Label(name).map((msg) => invalid(`${path}.name`, name, msg)));
      if (names.has(name)) causes.push(duplicate(`${path}.name`, name));
      else names.add(name);
    }
    causes.push(...isValidPortNum(port.port).map((msg) => invalid(`${path}.port`, port.port ?? 0, msg)));
    if (!port.protocol) causes.push(required(`${path}.protocol`));
    else if (!PORT_PROTOCOLS.includes(port.protocol))
      causes.push(notSupported(`${path}.protocol`, port.protocol, PORT_PROTOCOLS));
    causes.push(...validatePortNumOrName(port.targetPort, `${path}.targetPort`));
    if (spec.type === 'ClusterIP' && port.nodePort)
      causes.push(forbidden(`${path}.nodePort`, "may not be used when `type` is 'ClusterIP'"));
    // Two ports may share a number only with different protocols.
    const key = `${port.protocol}/${port.port}`;
    if (seen.has(key)) causes.push(duplicate(path, { protocol: port.protocol, port: port.port }));
    seen.add(key);
  });
  causes.push(...validateLabels(spec.selector, 'spec.selector'));
  if (!spec.sessionAffinity) causes.push(required('spec.sessionAffinity'));
  else if (!SESSION_AFFINITIES.includes(spec.sessionAffinity))
    causes.push(notSupported('spec.sessionAffinity', spec.sessionAffinity, SESSION_AFFINITIES));
  if (!spec.type) causes.push(required('spec.type'));
  else if (!SERVICE_TYPES.includes(spec.type)) causes.push(notSupported('spec.type', spec.type, SERVICE_TYPES));
  return causes;
}
