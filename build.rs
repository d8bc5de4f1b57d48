//! Compiles proto/rtphys/v1/*.proto without a system protoc: protox parses the files
//! into a FileDescriptorSet (written to OUT_DIR for server reflection), and
//! tonic-prost-build generates the messages and the service from it.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let fds = protox::compile(["rtphys/v1/sim.proto"], ["proto"])?;
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out.join("rtphys_descriptor.bin"),
        prost::Message::encode_to_vec(&fds),
    )?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_fds(fds)?;
    Ok(())
}
