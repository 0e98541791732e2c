#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A small CRI client: the calls kubelet makes to start and stop a pod, over
containerd's gRPC socket (Debian 12 has no crictl). The messages come from
tests/cri/cri.proto, compiled by protoc into $CRI_PB_DIR (tests/cri/run.sh).

  cri.py [--socket PATH] version
  cri.py run-pod POD.json                -> sandbox id
  cri.py pod-status ID                   -> {"state", "ip", "ips", "netns"}
  cri.py stop-pod ID | remove-pod ID
  cri.py create-container ID POD.json CTR.json -> container id
  cri.py start ID | stop-container ID | remove-container ID
  cri.py container-status ID             -> {"state", "exit_code", "reason", "log_path"}
  cri.py exec ID CMD...                  -> the command's stdout; its exit status

POD.json: {"name", "namespace", "uid", "attempt", "hostname", "log_directory",
           "annotations": {}, "host_network": false, "privileged": false,
           "ports": [{"container_port", "host_port"}]}
CTR.json: {"name", "image", "command": [], "args": [], "env": {},
           "mounts": [{"container_path", "host_path", "readonly",
                       "propagation": "None" | "HostToContainer" | "Bidirectional"}],
           "privileged": false, "capabilities": {"add": [], "drop": []},
           "readonly_rootfs": false, "no_new_privs": false, "run_as_user": null,
           "apparmor": "" | "Unconfined", "log_path"}
A gRPC failure prints the status code and message on stderr and exits 2.
"""
import json
import os
import sys

sys.path.insert(0, os.environ.get("CRI_PB_DIR", os.path.dirname(__file__)))
import grpc  # noqa: E402
import cri_pb2 as pb  # noqa: E402

SERVICE = "/runtime.v1.RuntimeService/"


class Client:
    def __init__(self, socket, timeout):
        self.channel = grpc.insecure_channel("unix://" + socket)
        self.timeout = timeout

    def call(self, method, request, response_type):
        rpc = self.channel.unary_unary(
            SERVICE + method,
            request_serializer=type(request).SerializeToString,
            response_deserializer=response_type.FromString)
        return rpc(request, timeout=self.timeout)


def sandbox_config(spec):
    """PodSandboxConfig as kubelet fills it for a pod."""
    ns = pb.NamespaceOption(
        network=pb.NODE if spec.get("host_network") else pb.POD,
        pid=pb.CONTAINER, ipc=pb.POD)
    return pb.PodSandboxConfig(
        metadata=pb.PodSandboxMetadata(
            name=spec["name"], uid=spec["uid"], namespace=spec["namespace"],
            attempt=spec.get("attempt", 0)),
        # The node's own UTS namespace goes with its network: no hostname.
        hostname="" if spec.get("host_network") else spec.get("hostname", spec["name"]),
        log_directory=spec.get("log_directory", ""),
        port_mappings=[pb.PortMapping(container_port=p["container_port"],
                                      host_port=p.get("host_port", 0))
                       for p in spec.get("ports", [])],
        labels={"io.kubernetes.pod.name": spec["name"],
                "io.kubernetes.pod.namespace": spec["namespace"],
                "io.kubernetes.pod.uid": spec["uid"]},
        annotations=spec.get("annotations", {}),
        linux=pb.LinuxPodSandboxConfig(
            security_context=pb.LinuxSandboxSecurityContext(
                namespace_options=ns, privileged=spec.get("privileged", False))))


PROPAGATION = {"None": pb.PROPAGATION_PRIVATE,
               "HostToContainer": pb.PROPAGATION_HOST_TO_CONTAINER,
               "Bidirectional": pb.PROPAGATION_BIDIRECTIONAL}


def security_context(spec, ns):
    """A container's securityContext as kubelet converts it (kuberuntime's
    determineEffectiveSecurityContext): capability names as written,
    AppArmor in both the field and its deprecated string."""
    sc = pb.LinuxContainerSecurityContext(
        privileged=spec.get("privileged", False), namespace_options=ns,
        readonly_rootfs=spec.get("readonly_rootfs", False),
        no_new_privs=spec.get("no_new_privs", False))
    caps = spec.get("capabilities")
    if caps:
        sc.capabilities.add_capabilities.extend(caps.get("add", []))
        sc.capabilities.drop_capabilities.extend(caps.get("drop", []))
    if spec.get("run_as_user") is not None:
        sc.run_as_user.value = spec["run_as_user"]
    if spec.get("apparmor") == "Unconfined":
        sc.apparmor.profile_type = pb.SecurityProfile.Unconfined
        sc.apparmor_profile = "unconfined"
    return sc


def container_config(spec, host_network):
    ns = pb.NamespaceOption(network=pb.NODE if host_network else pb.POD,
                            pid=pb.CONTAINER, ipc=pb.POD)
    return pb.ContainerConfig(
        metadata=pb.ContainerMetadata(name=spec["name"]),
        image=pb.ImageSpec(image=spec["image"]),
        command=spec.get("command", []), args=spec.get("args", []),
        envs=[pb.KeyValue(key=k, value=v) for k, v in spec.get("env", {}).items()],
        mounts=[pb.Mount(container_path=m["container_path"], host_path=m["host_path"],
                         readonly=m.get("readonly", False),
                         propagation=PROPAGATION[m.get("propagation", "None")])
                for m in spec.get("mounts", [])],
        log_path=spec.get("log_path", ""),
        linux=pb.LinuxContainerConfig(security_context=security_context(spec, ns)))


def load(path):
    with open(path) as f:
        return json.load(f)


def netns_of(info):
    """The pinned netns path from containerd's verbose sandbox info."""
    try:
        spec = json.loads(info.get("info", "{}")).get("runtimeSpec", {})
        for ns in spec.get("linux", {}).get("namespaces", []):
            if ns.get("type") == "network":
                return ns.get("path", "")
    except ValueError:
        pass
    return ""


def run(c, cmd, args):
    if cmd == "version":
        r = c.call("Version", pb.VersionRequest(version="v1"), pb.VersionResponse)
        print(json.dumps({"runtime": r.runtime_name, "version": r.runtime_version,
                          "api": r.runtime_api_version}))
    elif cmd == "run-pod":
        r = c.call("RunPodSandbox",
                   pb.RunPodSandboxRequest(config=sandbox_config(load(args[0]))),
                   pb.RunPodSandboxResponse)
        print(r.pod_sandbox_id)
    elif cmd == "pod-status":
        r = c.call("PodSandboxStatus",
                   pb.PodSandboxStatusRequest(pod_sandbox_id=args[0], verbose=True),
                   pb.PodSandboxStatusResponse)
        st = r.status
        print(json.dumps({
            "state": pb.PodSandboxState.Name(st.state),
            "ip": st.network.ip,
            "ips": [st.network.ip] + [p.ip for p in st.network.additional_ips]
            if st.network.ip else [],
            "netns": netns_of(r.info)}))
    elif cmd == "stop-pod":
        c.call("StopPodSandbox", pb.StopPodSandboxRequest(pod_sandbox_id=args[0]),
               pb.StopPodSandboxResponse)
    elif cmd == "remove-pod":
        c.call("RemovePodSandbox", pb.RemovePodSandboxRequest(pod_sandbox_id=args[0]),
               pb.RemovePodSandboxResponse)
    elif cmd == "create-container":
        pod = load(args[1])
        r = c.call("CreateContainer", pb.CreateContainerRequest(
            pod_sandbox_id=args[0],
            config=container_config(load(args[2]), pod.get("host_network", False)),
            sandbox_config=sandbox_config(pod)), pb.CreateContainerResponse)
        print(r.container_id)
    elif cmd == "start":
        c.call("StartContainer", pb.StartContainerRequest(container_id=args[0]),
               pb.StartContainerResponse)
    elif cmd == "stop-container":
        c.call("StopContainer", pb.StopContainerRequest(container_id=args[0], timeout=5),
               pb.StopContainerResponse)
    elif cmd == "remove-container":
        c.call("RemoveContainer", pb.RemoveContainerRequest(container_id=args[0]),
               pb.RemoveContainerResponse)
    elif cmd == "container-status":
        r = c.call("ContainerStatus", pb.ContainerStatusRequest(container_id=args[0]),
                   pb.ContainerStatusResponse)
        st = r.status
        print(json.dumps({"state": pb.ContainerState.Name(st.state),
                          "exit_code": st.exit_code, "reason": st.reason,
                          "log_path": st.log_path}))
    elif cmd == "exec":
        r = c.call("ExecSync", pb.ExecSyncRequest(container_id=args[0], cmd=args[1:],
                                                  timeout=20), pb.ExecSyncResponse)
        sys.stdout.buffer.write(r.stdout)
        sys.stderr.buffer.write(r.stderr)
        return r.exit_code
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


def main(argv):
    socket = "/run/containerd/containerd.sock"
    if len(argv) > 2 and argv[1] == "--socket":
        socket = argv[2]
        argv = argv[2:]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        return run(Client(socket, float(os.environ.get("CRI_TIMEOUT", "60"))),
                   argv[1], argv[2:])
    except grpc.RpcError as e:
        print("cri: %s: %s: %s" % (argv[1], e.code().name, e.details()), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
