#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""kubelet's PodResources v1 API as the tests need it, served by grpcio on a
unix socket from cni/protocol/podres.proto (compiled by protoc --python_out into
--pb-dir). The pods and their devices are read from --pods at every call:

  [{"namespace": "ns", "name": "pod", "devices": {"example.com/vf": ["0000:03:01.0"]},
    "claims": [{"namespace": "ns", "name": "claim", "devices": [{"driver": "d.example.com",
                "pool": "node1", "device": "0000-03-01-0"}]}]}]

Modes, each answering as a kubelet version does with its default feature
gates (kubernetes/kubernetes pkg/kubelet/apis/podresources/server_v1.go):
  get    1.34 and later: Get and List served (KubeletPodResourcesGet on);
         Get of a pod it does not know: UNKNOWN "pod <name> not found in
         namespace <ns>"
  gated  1.27 to 1.33: Get registered but the gate off, so every Get
         answers UNKNOWN "PodResources API Get method disabled" (a plain Go
         error, which gRPC sends as UNKNOWN); List served
  list   before 1.27: no Get method at all (gRPC's UNIMPLEMENTED); List
slow (get, each answer after --delay seconds), silent (the socket accepts
connections and never reads or answers them: no HTTP/2 at all).
"""
import argparse
import json
import os
import signal
import socket
import sys
import time
from concurrent import futures


def claim_message(pb, c, dra):
    """One DynamicResource as the kubelet of --dra fills it: names (1.31 on:
    driver, pool, device and the CDI names), cdi (1.27-1.30: class_name and
    the CDI names only)."""
    dr = pb.DynamicResource(claim_name=c["name"], claim_namespace=c["namespace"])
    if dra == "cdi":
        dr.class_name = c.get("class", "vf.example.com")
    for d in c["devices"]:
        res = dr.claim_resources.add()
        for name in d.get("cdi", ["%s/vf=%s" % (d["driver"], d["device"])]):
            res.cdi_devices.add(name=name)
        if dra == "names":
            res.driver_name, res.pool_name, res.device_name = d["driver"], d["pool"], d["device"]
    return dr


def pod_message(pb, p, dra):
    ctr = pb.ContainerResources(name="ctr")
    for resource, ids in p.get("devices", {}).items():
        ctr.devices.add(resource_name=resource, device_ids=ids)
    if dra != "off":
        for c in p.get("claims", []):
            ctr.dynamic_resources.append(claim_message(pb, c, dra))
    return pb.PodResources(name=p["name"], namespace=p["namespace"], containers=[ctr])


def serve_grpc(args):
    sys.path.insert(0, args.pb_dir)
    import grpc
    import podres_pb2 as pb

    def pods():
        with open(args.pods) as f:
            return json.load(f)

    def pause():
        if args.mode == "slow":
            time.sleep(args.delay)

    def get(req, ctx):
        pause()
        if args.mode == "gated":
            ctx.abort(grpc.StatusCode.UNKNOWN, "PodResources API Get method disabled")
        for p in pods():
            if p["namespace"] == req.pod_namespace and p["name"] == req.pod_name:
                return pb.GetPodResourcesResponse(pod_resources=pod_message(pb, p, args.dra))
        # kubelet's own answer for a pod it does not know (a plain Go error).
        ctx.abort(grpc.StatusCode.UNKNOWN,
                  "pod %s not found in namespace %s" % (req.pod_name, req.pod_namespace))

    def list_(req, ctx):
        pause()
        return pb.ListPodResourcesResponse(pod_resources=[pod_message(pb, p, args.dra) for p in pods()])

    methods = {"List": grpc.unary_unary_rpc_method_handler(
        list_, request_deserializer=pb.ListPodResourcesRequest.FromString,
        response_serializer=pb.ListPodResourcesResponse.SerializeToString)}
    if args.mode != "list":
        methods["Get"] = grpc.unary_unary_rpc_method_handler(
            get, request_deserializer=pb.GetPodResourcesRequest.FromString,
            response_serializer=pb.GetPodResourcesResponse.SerializeToString)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("v1.PodResourcesLister", methods),))
    server.add_insecure_port("unix:" + args.socket)
    server.start()
    server.wait_for_termination()


def serve_silent(args):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(args.socket)
    s.listen(16)
    held = []
    while True:
        c, _ = s.accept()
        print("silent: accepted a connection", flush=True)  # what tests count
        held.append(c)  # never read, never answered, never closed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--socket", required=True)
    ap.add_argument("--pods", required=True)
    ap.add_argument("--pb-dir", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--mode", choices=["get", "gated", "list", "slow", "silent"], default="get")
    ap.add_argument("--delay", type=float, default=5.0)
    # DRA claims (a pod's "claims"): filled with driver, pool and device
    # names (1.31 on; by default from 1.34, KubeletPodResourcesDynamicResources),
    # CDI names only (1.27-1.30 with that gate on), or not at all (gate off).
    # Default: as the version of --mode with its default gates (names from 1.34, else off).
    ap.add_argument("--dra", choices=["names", "cdi", "off"])
    args = ap.parse_args()
    if args.dra is None:
        args.dra = "names" if args.mode in ("get", "slow") else "off"
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    if args.mode == "silent":
        serve_silent(args)
    else:
        serve_grpc(args)


if __name__ == "__main__":
    main()
