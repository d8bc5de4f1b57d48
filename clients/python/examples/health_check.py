"""grpc.health.v1 and server reflection (v1alpha, what grpcio-reflection speaks)."""
import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from _args import parser


def main() -> None:
    a = parser(__doc__).parse_args()
    with grpc.insecure_channel(a.addr) as ch:
        h = health_pb2_grpc.HealthStub(ch)
        for svc in ("", "rtphys.v1.Simulation"):
            st = h.Check(health_pb2.HealthCheckRequest(service=svc), timeout=5).status
            print(f"health {svc or '(server)'}: {health_pb2.HealthCheckResponse.ServingStatus.Name(st)}")
            assert st == health_pb2.HealthCheckResponse.SERVING
        db = ProtoReflectionDescriptorDatabase(ch)
        services = db.get_services()
        print("reflection:", ", ".join(services))
        assert "rtphys.v1.Simulation" in services
        sd = db.FindFileContainingSymbol("rtphys.v1.Simulation")
        print("descriptor:", sd.name)


if __name__ == "__main__":
    main()
