"""Drives Kubernetes' official Python client (Debian's python3-kubernetes) through one kubeconfig.

Used by test/gateway/python-client.test.ts: python-client.py KUBECONFIG NAMESPACE NAME LABEL
does, in NAMESPACE, what a program written against the client does, and prints one JSON object
of what the client made of each answer, for the test to assert on. Any exception fails the run.
"""

import json
import sys
import threading

from kubernetes import client, config, watch

kubeconfig, namespace, name, label = sys.argv[1:5]
api_client = config.new_client_from_config(config_file=kubeconfig)
core = client.CoreV1Api(api_client)
result = {}

listed = core.list_namespaced_config_map(namespace)
result["listed"] = sorted(item.metadata.name for item in listed.items)

# The watch starts at the list's version, so it sees every change below however fast they come.
events = []
watcher = watch.Watch()


def follow():
    for event in watcher.stream(
        core.list_namespaced_config_map,
        namespace,
        resource_version=listed.metadata.resource_version,
        timeout_seconds=60,
    ):
        events.append([event["type"], event["object"].metadata.name])
        if event["type"] == "DELETED" and event["object"].metadata.name == name:
            watcher.stop()


following = threading.Thread(target=follow)
following.start()

body = client.V1ConfigMap(
    metadata=client.V1ObjectMeta(name=name, labels={"suite": label}),
    data={"colour": "blue"},
)
created = core.create_namespaced_config_map(namespace, body)
result["created"] = {"name": created.metadata.name, "namespace": created.metadata.namespace}

read = core.read_namespaced_config_map(name, namespace)
result["read"] = {"uid": read.metadata.uid == created.metadata.uid, "data": read.data}

patched = core.patch_namespaced_config_map(name, namespace, {"data": {"colour": "green"}})
result["patched"] = patched.data

selected = core.list_config_map_for_all_namespaces(label_selector=f"suite={label}")
result["selected"] = [[item.metadata.namespace, item.metadata.name] for item in selected.items]

deleted = core.delete_namespaced_config_map(name, namespace)
result["deleted"] = {
    "status": deleted.status,
    "name": deleted.details.name,
    "kind": deleted.details.kind,
    "uid": deleted.details.uid == created.metadata.uid,
}

following.join(timeout=60)
result["events"] = events
print(json.dumps(result))
