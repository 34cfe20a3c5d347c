import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { RestClient } from '../../apiserver/client/rest-client.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { API_AUDIENCES } from '../../devcluster/service-account-tokens.js';
import { makeTempDir } from '../support/temp-dir.js';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';

describe('devcluster: ServiceAccount token audiences, as kube-apiserver', function () {
  let work: Awaited<ReturnType<typeof makeTempDir>>;
  let cluster: DevCluster;
  let admin: RestClient;

  const tokenFor = async (audiences?: string[]) => {
    const res = await admin.request('POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: audiences ? { audiences } : {},
    });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  };
  const review = async (token: string, audiences?: string[]) =>
    (
      await admin.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        spec: { token, ...(audiences ? { audiences } : {}) },
      })
    ).body.status;
  const asBearer = (token: string) =>
    new RestClient(admin.server, { ca: undefined, token, insecureSkipTlsVerify: true });

  before(async () => {
    work = await makeTempDir('token-audiences');
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: work.dir });
    admin = RestClient.fromKubeconfig(await readFile(cluster.kubeconfigPath, 'utf8'));
    const made = await admin.request('POST', '/api/v1/namespaces/default/serviceaccounts', {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'robot' },
    });
    expect(made.status).to.equal(201);
  });
  after(async () => {
    admin?.close();
    await cluster?.stop();
    await work?.remove();
  });

  it('a TokenRequest naming no audience gets the API’s own, and says so in its spec', async () => {
    expect(API_AUDIENCES).to.deep.equal([ISSUER]);
    const answer = await tokenFor();
    expect(answer.spec.audiences).to.deep.equal([ISSUER]);
    // Named as its account, in its namespace, made now (kubectl create token -o yaml shows it so).
    expect(answer.metadata).to.include({ name: 'robot', namespace: 'default' });
    expect(Date.parse(answer.metadata.creationTimestamp)).to.be.closeTo(Date.now(), 5000);
    const claims = JSON.parse(Buffer.from(answer.status.token.split('.')[1], 'base64url').toString('utf8'));
    expect(claims.aud).to.deep.equal([ISSUER]);
    const status = await review(answer.status.token);
    expect(status).to.include({ authenticated: true });
    expect(status.audiences).to.deep.equal([ISSUER]);
    expect(status.user.username).to.equal('system:serviceaccount:default:robot');
  });

  it('a token for another audience is reviewed as that audience’s only, and is no credential for the API', async () => {
    const { status: issued, spec } = await tokenFor(['paddock', 'vault']);
    expect(spec.audiences).to.deep.equal(['paddock', 'vault']);
    expect(await review(issued.token)).to.include({ authenticated: false });
    const forPaddock = await review(issued.token, ['paddock']);
    expect(forPaddock).to.include({ authenticated: true });
    expect(forPaddock.audiences).to.deep.equal(['paddock']);
    expect((await review(issued.token, ['other', 'vault'])).audiences).to.deep.equal(['vault']);
    const bearer = asBearer(issued.token);
    try {
      expect((await bearer.request('GET', '/api/v1/namespaces/default/pods')).status).to.equal(401);
    } finally {
      bearer.close();
    }
  });

  it('a token of the API’s audience reviewed for another is refused; used as itself it is the account', async () => {
    const { status: issued } = await tokenFor();
    expect(await review(issued.token, ['paddock'])).to.include({ authenticated: false });
    const bearer = asBearer(issued.token);
    try {
      const whoami = await bearer.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'SelfSubjectReview',
      });
      expect(whoami.body.status.userInfo.username).to.equal('system:serviceaccount:default:robot');
    } finally {
      bearer.close();
    }
  });

  it('audiences that are not a list of strings are a 400', async () => {
    const res = await admin.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token: 'x', audiences: 'paddock' },
    });
    expect(res.status).to.equal(400);
    expect(res.body.message).to.contain('spec.audiences');
  });
});
