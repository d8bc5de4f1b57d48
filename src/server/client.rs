//! A typed Rust client of the rtphys API (used by the tests, the benchmarks and
//! `clients/rust/examples`).
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! use rtphys::server::client::{Client, force};
//! let mut c = Client::connect("127.0.0.1:50051").await?;
//! let world = c.world().await?;
//! c.apply_wrench(force("red_box", [2.0, 0.0, 0.0])).await?;
//! let s = c.state().await?;
//! println!("tick {} of {}", s.tick, world.scene_name);
//! # Ok(()) }
//! ```

pub use super::pb;
use super::pb::simulation_client::SimulationClient;
use crate::runtime::clock::mono_ns;
use tokio::sync::mpsc;
use tonic::transport::{Channel, Endpoint};
use tonic::{Status, Streaming};

/// A body by name.
pub fn body(name: &str) -> pb::BodyRef {
    pb::BodyRef {
        r#ref: Some(pb::body_ref::Ref::Name(name.to_string())),
    }
}

/// A body by id.
pub fn body_id(id: u32) -> pb::BodyRef {
    pb::BodyRef {
        r#ref: Some(pb::body_ref::Ref::Id(id)),
    }
}

/// A world-frame force at the centre of mass of a named body, until cleared.
pub fn force(name: &str, f: [f64; 3]) -> pb::BodyWrench {
    pb::BodyWrench {
        body: Some(body(name)),
        force: f.to_vec(),
        ..Default::default()
    }
}

/// A world-frame force and torque on a body.
pub fn wrench(b: pb::BodyRef, f: [f64; 3], t: [f64; 3]) -> pb::BodyWrench {
    pb::BodyWrench {
        body: Some(b),
        force: f.to_vec(),
        torque: t.to_vec(),
        ..Default::default()
    }
}

/// A joint by name ("robot/joint", or a joint name only one robot has).
pub fn joint(name: &str) -> pb::JointRef {
    pb::JointRef {
        r#ref: Some(pb::joint_ref::Ref::Name(name.to_string())),
    }
}

/// A joint by id.
pub fn joint_id(id: u32) -> pb::JointRef {
    pb::JointRef {
        r#ref: Some(pb::joint_ref::Ref::Id(id)),
    }
}

/// A held effort (N·m or N) on a joint.
pub fn effort(j: pb::JointRef, effort: f64) -> pb::JointCommand {
    pb::JointCommand {
        joint: Some(j),
        effort,
        servo: None,
    }
}

/// A servo set-point on a joint (and no extra effort).
pub fn servo(j: pb::JointRef, position: f64, velocity: f64) -> pb::JointCommand {
    pb::JointCommand {
        joint: Some(j),
        effort: 0.0,
        servo: Some(pb::ServoCommand {
            enabled: true,
            position,
            velocity,
            torque: 0.0,
        }),
    }
}

/// A raw effort (N·m or N) with the joint's servo disabled: torque control.
/// (Only for joints that have a servo in the scene; use [`effort`] otherwise.)
pub fn torque(j: pb::JointRef, effort: f64) -> pb::JointCommand {
    pb::JointCommand {
        joint: Some(j),
        effort,
        servo: Some(pb::ServoCommand {
            enabled: false,
            ..Default::default()
        }),
    }
}

/// A servo set-point with a feed-forward torque (e.g. gravity compensation).
pub fn servo_ff(j: pb::JointRef, position: f64, velocity: f64, torque: f64) -> pb::JointCommand {
    pb::JointCommand {
        joint: Some(j),
        effort: 0.0,
        servo: Some(pb::ServoCommand {
            enabled: true,
            position,
            velocity,
            torque,
        }),
    }
}

/// Adds `authorization: Bearer <token>` to every call when a token is set.
#[derive(Clone, Default)]
pub struct Token(Option<tonic::metadata::MetadataValue<tonic::metadata::Ascii>>);

impl tonic::service::Interceptor for Token {
    fn call(&mut self, mut req: tonic::Request<()>) -> Result<tonic::Request<()>, Status> {
        if let Some(v) = &self.0 {
            req.metadata_mut().insert("authorization", v.clone());
        }
        Ok(req)
    }
}

/// The generated client with the token interceptor.
pub type RawClient =
    SimulationClient<tonic::service::interceptor::InterceptedService<Channel, Token>>;

/// Connection to an rtphys server.
#[derive(Clone)]
pub struct Client {
    pub raw: RawClient,
    pub channel: Channel,
    seq: u64,
}

impl Client {
    /// `addr` as "host:port" or "http://host:port".
    pub async fn connect(addr: &str) -> anyhow::Result<Client> {
        Self::connect_with_token(addr, None).await
    }

    /// Connect and send `authorization: Bearer <token>` with every call.
    pub async fn connect_with_token(addr: &str, token: Option<&str>) -> anyhow::Result<Client> {
        Self::connect_with(addr, token, None).await
    }

    /// Connect over TLS (`tls`: CA to trust, optional client identity for mutual TLS,
    /// server name) and/or with a token. `addr` as "host:port" or "https://host:port".
    pub async fn connect_with(
        addr: &str,
        token: Option<&str>,
        tls: Option<tonic::transport::ClientTlsConfig>,
    ) -> anyhow::Result<Client> {
        let token = match token {
            Some(t) => Token(Some(
                format!("Bearer {t}")
                    .parse()
                    .map_err(|_| anyhow::anyhow!("token: not printable ASCII"))?,
            )),
            None => Token(None),
        };
        let scheme = if tls.is_some() { "https" } else { "http" };
        let url = if addr.contains("://") {
            addr.to_string()
        } else {
            format!("{scheme}://{addr}")
        };
        let mut ep = Endpoint::from_shared(url)?;
        if let Some(t) = tls {
            ep = ep.tls_config(t)?;
        }
        let channel = ep
            .tcp_nodelay(true)
            .initial_connection_window_size(Some(8 << 20))
            .initial_stream_window_size(Some(1 << 20))
            .connect()
            .await?;
        Ok(Client {
            raw: SimulationClient::with_interceptor(channel.clone(), token)
                .max_decoding_message_size(64 << 20),
            channel,
            seq: 0,
        })
    }

    fn header(&mut self) -> pb::CommandHeader {
        self.seq += 1;
        pb::CommandHeader {
            seq: self.seq,
            client_time_ns: mono_ns(),
            world_generation: 0,
        }
    }

    pub async fn world(&mut self) -> Result<pb::WorldInfo, Status> {
        Ok(self
            .raw
            .get_world(pb::GetWorldRequest {})
            .await?
            .into_inner())
    }

    pub async fn state(&mut self) -> Result<pb::State, Status> {
        Ok(self
            .raw
            .get_state(pb::GetStateRequest::default())
            .await?
            .into_inner())
    }

    /// Set wrenches (replacing this API's earlier wrench on each named body).
    pub async fn apply_wrenches(
        &mut self,
        wrenches: Vec<pb::BodyWrench>,
    ) -> Result<pb::CommandReply, Status> {
        let header = Some(self.header());
        Ok(self
            .raw
            .apply_wrench(pb::ApplyWrenchRequest { header, wrenches })
            .await?
            .into_inner())
    }

    pub async fn apply_wrench(&mut self, w: pb::BodyWrench) -> Result<pb::CommandReply, Status> {
        self.apply_wrenches(vec![w]).await
    }

    /// Set joint efforts / servo set-points, held until replaced.
    pub async fn command_joints(
        &mut self,
        joints: Vec<pb::JointCommand>,
    ) -> Result<pb::CommandReply, Status> {
        let header = Some(self.header());
        Ok(self
            .raw
            .command_joints(pb::CommandJointsRequest { header, joints })
            .await?
            .into_inner())
    }

    /// Remove ApplyWrench wrenches (all bodies if `bodies` is empty).
    pub async fn clear_wrenches(
        &mut self,
        bodies: Vec<pb::BodyRef>,
    ) -> Result<pb::CommandReply, Status> {
        let header = Some(self.header());
        Ok(self
            .raw
            .clear_wrench(pb::ClearWrenchRequest { header, bodies })
            .await?
            .into_inner())
    }

    pub async fn step(&mut self, n: u32) -> Result<pb::StepReply, Status> {
        Ok(self
            .raw
            .step(pb::StepRequest { n, fields: vec![] })
            .await?
            .into_inner())
    }

    pub async fn pause(&mut self) -> Result<pb::RunStatus, Status> {
        Ok(self.raw.pause(pb::PauseRequest {}).await?.into_inner())
    }

    pub async fn resume(&mut self) -> Result<pb::RunStatus, Status> {
        Ok(self.raw.resume(pb::ResumeRequest {}).await?.into_inner())
    }

    /// Switch mode (and the real-time factor if `rtf` > 0).
    pub async fn set_mode(&mut self, mode: pb::RunMode, rtf: f64) -> Result<pb::RunStatus, Status> {
        Ok(self
            .raw
            .set_mode(pb::SetModeRequest {
                mode: mode as i32,
                realtime_factor: rtf,
            })
            .await?
            .into_inner())
    }

    pub async fn reset(&mut self) -> Result<pb::CommandReply, Status> {
        Ok(self.raw.reset(pb::ResetRequest {}).await?.into_inner())
    }

    pub async fn save(&mut self) -> Result<pb::SnapshotInfo, Status> {
        Ok(self
            .raw
            .save_snapshot(pb::SaveSnapshotRequest {})
            .await?
            .into_inner())
    }

    pub async fn restore(&mut self, snapshot_id: u64) -> Result<pb::CommandReply, Status> {
        Ok(self
            .raw
            .restore_snapshot(pb::RestoreSnapshotRequest { snapshot_id })
            .await?
            .into_inner())
    }

    pub async fn load_scene_toml(
        &mut self,
        toml: &str,
        name: &str,
    ) -> Result<pb::WorldInfo, Status> {
        Ok(self
            .raw
            .load_scene(pb::LoadSceneRequest {
                source: Some(pb::load_scene_request::Source::Toml(toml.to_string())),
                name: name.to_string(),
            })
            .await?
            .into_inner())
    }

    pub async fn stats(&mut self, reset: bool) -> Result<pb::Stats, Status> {
        Ok(self
            .raw
            .get_stats(pb::GetStatsRequest { reset })
            .await?
            .into_inner())
    }

    /// Start a command log in the server's `server.record_dir/<file>` (resets the world).
    pub async fn start_recording(&mut self, file: &str) -> Result<pb::RecordingInfo, Status> {
        Ok(self
            .raw
            .start_recording(pb::StartRecordingRequest { file: file.into() })
            .await?
            .into_inner())
    }

    /// Stop the command log; the reply carries the end tick and state hash.
    pub async fn stop_recording(&mut self) -> Result<pb::RecordingInfo, Status> {
        Ok(self
            .raw
            .stop_recording(pb::StopRecordingRequest {})
            .await?
            .into_inner())
    }

    /// Server stream of states.
    pub async fn watch(
        &mut self,
        req: pb::StreamStateRequest,
    ) -> Result<Streaming<pb::State>, Status> {
        Ok(self.raw.stream_state(req).await?.into_inner())
    }

    /// Open a control stream: sends `hello`, returns once the server accepted it.
    pub async fn control(&mut self, hello: pb::ControlHello) -> Result<ControlSession, Status> {
        let (tx, rx) = mpsc::channel::<pb::ControlRequest>(1024);
        tx.send(pb::ControlRequest {
            msg: Some(pb::control_request::Msg::Hello(hello)),
        })
        .await
        .map_err(|_| Status::internal("control channel closed"))?;
        let states = self
            .raw
            .control(tokio_stream::wrappers::ReceiverStream::new(rx))
            .await?
            .into_inner();
        Ok(ControlSession {
            tx: Some(tx),
            states,
            seq: 0,
            stream_id: 0,
        })
    }
}

/// An open control stream: commands in, states out.
pub struct ControlSession {
    tx: Option<mpsc::Sender<pb::ControlRequest>>,
    pub states: Streaming<pb::State>,
    seq: u64,
    /// Known after the first state.
    pub stream_id: u64,
}

impl ControlSession {
    /// Send a command; returns its sequence number.
    pub async fn send(
        &mut self,
        wrenches: Vec<pb::BodyWrench>,
        clear: bool,
    ) -> Result<u64, Status> {
        self.send_with_joints(wrenches, clear, vec![]).await
    }

    /// Send joint commands only; returns the sequence number.
    pub async fn send_joints(&mut self, joints: Vec<pb::JointCommand>) -> Result<u64, Status> {
        self.send_with_joints(vec![], false, joints).await
    }

    /// Send wrenches and joint commands; returns the sequence number.
    pub async fn send_with_joints(
        &mut self,
        wrenches: Vec<pb::BodyWrench>,
        clear: bool,
        joints: Vec<pb::JointCommand>,
    ) -> Result<u64, Status> {
        self.seq += 1;
        let cmd = pb::ControlCommand {
            header: Some(pb::CommandHeader {
                seq: self.seq,
                client_time_ns: mono_ns(),
                world_generation: 0,
            }),
            wrenches,
            clear,
            joints,
        };
        self.send_command(cmd).await?;
        Ok(self.seq)
    }

    /// Send a command as given (its header is not touched).
    pub async fn send_command(&mut self, cmd: pb::ControlCommand) -> Result<(), Status> {
        let tx = self
            .tx
            .as_ref()
            .ok_or_else(|| Status::failed_precondition("control stream closed"))?;
        tx.send(pb::ControlRequest {
            msg: Some(pb::control_request::Msg::Command(cmd)),
        })
        .await
        .map_err(|_| Status::unavailable("control stream closed"))
    }

    /// Next state (None when the server ended the stream).
    pub async fn next_state(&mut self) -> Result<Option<pb::State>, Status> {
        let s = self.states.message().await?;
        if let Some(s) = &s {
            self.stream_id = s.stream_id;
        }
        Ok(s)
    }

    /// This stream's acknowledgement in a state.
    pub fn own_ack<'a>(&self, s: &'a pb::State) -> Option<&'a pb::CommandAck> {
        s.acks.iter().find(|a| a.stream_id == s.stream_id)
    }

    /// Read states until one acknowledges `seq` (or reports it rejected).
    pub async fn wait_ack(&mut self, seq: u64) -> Result<pb::State, Status> {
        loop {
            let s = self
                .next_state()
                .await?
                .ok_or_else(|| Status::unavailable("control stream ended"))?;
            if let Some(e) = s.errors.iter().find(|e| e.seq == seq) {
                return Err(Status::new(
                    tonic::Code::from_i32(e.code),
                    e.message.clone(),
                ));
            }
            if self.own_ack(&s).is_some_and(|a| a.seq >= seq) {
                return Ok(s);
            }
        }
    }

    /// Close the command side; the server ends the stream after the last ack.
    pub fn close(&mut self) {
        self.tx = None;
    }
}
