"""A small controller on Kubernetes' official Python client (Debian's python3-kubernetes), configured
in-cluster: the way a tenant's operator in a pod finds its API.

in-cluster-controller.py SA_DIR GROUP VERSION PLURAL NAME: with KUBERNETES_SERVICE_HOST/PORT in
the environment and the token and CA at SA_DIR (a pod's /var/run/secrets/kubernetes.io/serviceaccount),
watches PLURAL in the namespace SA_DIR/namespace names until NAME appears, writes its status
(who saw it, and in which namespace), and prints one JSON object of what it saw. Any exception
fails the run; so does not seeing NAME within 30 seconds.
"""

import json
import os
import sys

from kubernetes import client, config, watch

sa_dir, group, version, plural, name = sys.argv[1:6]
config.incluster_config.InClusterConfigLoader(
    token_filename=os.path.join(sa_dir, "token"),
    cert_filename=os.path.join(sa_dir, "ca.crt"),
).load_and_set()
with open(os.path.join(sa_dir, "namespace")) as f:
    namespace = f.read()

api = client.CustomObjectsApi()
seen = []
for event in watch.Watch().stream(
    api.list_namespaced_custom_object, group, version, namespace, plural, timeout_seconds=30
):
    obj = event["object"]
    seen.append([event["type"], obj["apiVersion"], obj["metadata"]["namespace"], obj["metadata"]["name"]])
    if obj["metadata"]["name"] != name:
        continue
    obj["status"] = {"seenBy": "python", "namespace": obj["metadata"]["namespace"]}
    written = api.replace_namespaced_custom_object_status(group, version, namespace, plural, name, obj)
    print(json.dumps({"namespace": namespace, "seen": seen, "status": written["status"]}))
    sys.exit(0)
sys.exit("%s not seen in %s within 30 s" % (name, namespace))
