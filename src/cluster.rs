//! The private PostgreSQL cluster used when no `DATABASE_URL` is given.
//!
//! Layout of the data directory (`--data-dir`, `APP_DATA_DIR`):
//! - `pgdata/`: the cluster, made by `initdb`, run by `pg_ctl`;
//! - `password`: the generated password of the `spiceboard` role (mode 0600);
//! - `lock`: held (flock) while a process checks, creates, starts or stops the cluster, so that
//!   `serve` and a `team create` beside it never race;
//! - `users`: every process using the cluster holds a shared flock on it; a process stops the
//!   cluster on exit only if it is the last user (it then owns the cluster), so that a process
//!   leaving never takes the database from under another one, such as a newer `serve`;
//! - `serve.lock`: held by the one `serve` of this data directory; a second `serve` is refused.
//!
//! The server listens on 127.0.0.1 only, on a port chosen free at start and read back from
//! `postmaster.pid`, with password (SCRAM) authentication. A process that finds the cluster running
//! reuses it. PostgreSQL refuses to run as root, so when spiceboard runs as root the cluster belongs
//! to the `postgres` user (or `nobody`) and the commands run as that user.

use std::ffi::CString;
use std::fs;
use std::io::Write;
use std::os::unix::fs::{chown, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rand::distributions::Alphanumeric;
use rand::Rng;
use secrecy::{ExposeSecret, SecretString};

/// Name of the role and of the application database in the embedded cluster.
pub const ROLE: &str = "spiceboard";
pub const DATABASE: &str = "spiceboard";

#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    #[error("no PostgreSQL server binaries (initdb, pg_ctl) on PATH or under /usr/lib/postgresql/*/bin; install them with `apt-get install -y postgresql` or set DATABASE_URL")]
    BinariesNotFound,
    #[error("{what} in {path}: {source}")]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("`{command}` failed ({status}); its output:\n{output}")]
    CommandFailed {
        command: String,
        status: String,
        output: String,
    },
    #[error("spiceboard runs as root, so PostgreSQL runs as user `{user}`, which cannot enter {path}; choose a --data-dir that user can reach (for example under /var/lib or /tmp)")]
    Unreachable { user: String, path: PathBuf },
    #[error("the cluster in {0} is running but its postmaster.pid names no port")]
    NoPort(PathBuf),
    #[error("another `spiceboard serve`{pid} already uses the data directory {dir}; stop it first, or give this one its own --data-dir")]
    AlreadyServing { dir: PathBuf, pid: String },
}

fn io(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> ClusterError {
    let path = path.to_path_buf();
    move |source| ClusterError::Io { what, path, source }
}

/// The user PostgreSQL runs as when we are root.
#[derive(Debug, Clone)]
struct ServerUser {
    name: String,
    uid: u32,
    gid: u32,
}

/// A running cluster: where it is and how to reach it.
#[derive(Debug)]
pub struct Cluster {
    data_dir: PathBuf,
    bin_dir: PathBuf,
    run_as: Option<ServerUser>,
    port: u16,
    password: SecretString,
    /// True if this process started the server.
    pub started_here: bool,
    /// Our shared lock on `users` (see the module's documentation); `None` for a cluster we do not
    /// share (tests).
    user_lock: Option<fs::File>,
}

/// Options for [`Cluster::ensure_running`].
#[derive(Debug, Clone, Default)]
pub struct ClusterOptions {
    /// Trade durability for speed (tests): `fsync=off` and friends.
    pub ephemeral: bool,
    /// Start on this port rather than a free one (restarting where clients expect it).
    pub port: Option<u16>,
}

impl Cluster {
    /// Returns the cluster in `data_dir`, creating it with `initdb` if there is none and starting it
    /// if it is not running.
    pub fn ensure_running(
        data_dir: &Path,
        options: &ClusterOptions,
    ) -> Result<Cluster, ClusterError> {
        let bin_dir = find_binaries()?;
        let run_as = server_user();
        fs::create_dir_all(data_dir).map_err(io("cannot create the data directory", data_dir))?;
        let data_dir = data_dir
            .canonicalize()
            .map_err(io("cannot resolve the data directory", data_dir))?;
        if let Some(user) = &run_as {
            // The server's user must be able to pass through (not list) the data directory.
            fs::set_permissions(&data_dir, fs::Permissions::from_mode(0o711))
                .map_err(io("cannot set permissions", &data_dir))?;
            check_reachable(&data_dir, user)?;
        }
        let _lock = DirLock::acquire(&data_dir.join("lock"))?;
        let password = read_or_create_password(&data_dir)?;
        let user_lock = Some(flock_file(&data_dir.join("users"), libc::LOCK_SH)?);
        let mut cluster = Cluster {
            data_dir,
            bin_dir,
            run_as,
            port: 0,
            password,
            started_here: false,
            user_lock,
        };
        if !cluster.pgdata().join("PG_VERSION").exists() {
            cluster.initdb()?;
        }
        match cluster.running_port()? {
            Some(port) => cluster.port = port,
            None => {
                cluster.start(options)?;
                cluster.started_here = true;
            }
        }
        Ok(cluster)
    }

    fn pgdata(&self) -> PathBuf {
        self.data_dir.join("pgdata")
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// URL of database `db` in this cluster.
    pub fn url(&self, db: &str) -> SecretString {
        SecretString::from(format!(
            "postgres://{ROLE}:{}@127.0.0.1:{}/{db}",
            self.password.expose_secret(),
            self.port
        ))
    }

    fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(self.bin_dir.join(program));
        cmd.current_dir("/").stdin(Stdio::null());
        // Locale-independent messages and no inherited connection settings.
        cmd.env("LC_ALL", "C")
            .env_remove("PGDATA")
            .env_remove("PGPORT");
        if let Some(user) = &self.run_as {
            cmd.uid(user.uid).gid(user.gid).env("HOME", "/");
        }
        cmd
    }

    fn run(&self, mut cmd: Command, what: String) -> Result<String, ClusterError> {
        let out = cmd
            .output()
            .map_err(io("cannot run a PostgreSQL command", &self.bin_dir))?;
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        if !out.status.success() {
            return Err(ClusterError::CommandFailed {
                command: what,
                status: out.status.to_string(),
                output: text,
            });
        }
        Ok(text)
    }

    fn initdb(&self) -> Result<(), ClusterError> {
        let pgdata = self.pgdata();
        fs::create_dir_all(&pgdata).map_err(io("cannot create", &pgdata))?;
        fs::set_permissions(&pgdata, fs::Permissions::from_mode(0o700))
            .map_err(io("cannot set permissions", &pgdata))?;
        // initdb reads the password from a file; the server's user must be able to read it.
        let pwfile = self.data_dir.join("initdb-password");
        write_private(&pwfile, self.password.expose_secret())?;
        if let Some(user) = &self.run_as {
            chown(&pgdata, Some(user.uid), Some(user.gid)).map_err(io("cannot chown", &pgdata))?;
            chown(&pwfile, Some(user.uid), Some(user.gid)).map_err(io("cannot chown", &pwfile))?;
        }
        let mut cmd = self.command("initdb");
        cmd.arg("-D")
            .arg(&pgdata)
            .args([
                "-U",
                ROLE,
                "--auth=scram-sha-256",
                "-E",
                "UTF8",
                "--locale=C",
            ])
            .arg(format!("--pwfile={}", pwfile.display()));
        let result = self.run(cmd, format!("initdb -D {}", pgdata.display()));
        let _ = fs::remove_file(&pwfile);
        result.map(|_| ())
    }

    /// The port of the running server, or None if it is not running.
    fn running_port(&self) -> Result<Option<u16>, ClusterError> {
        let mut cmd = self.command("pg_ctl");
        cmd.arg("status").arg("-D").arg(self.pgdata());
        let status = cmd
            .output()
            .map_err(io("cannot run pg_ctl", &self.bin_dir))?
            .status;
        if !status.success() {
            return Ok(None);
        }
        let pid_file = self.pgdata().join("postmaster.pid");
        let text = fs::read_to_string(&pid_file).map_err(io("cannot read", &pid_file))?;
        // Line 4 of postmaster.pid is the port.
        match text.lines().nth(3).and_then(|l| l.trim().parse().ok()) {
            Some(port) => Ok(Some(port)),
            None => Err(ClusterError::NoPort(self.pgdata())),
        }
    }

    fn start(&mut self, options: &ClusterOptions) -> Result<(), ClusterError> {
        let port = match options.port {
            Some(p) => p,
            None => free_port().map_err(io("cannot find a free port", &self.data_dir))?,
        };
        let mut server_opts = format!(
            "-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=200"
        );
        if options.ephemeral {
            server_opts.push_str(" -c fsync=off -c synchronous_commit=off -c full_page_writes=off");
        }
        let log = self.pgdata().join("server.log");
        let mut cmd = self.command("pg_ctl");
        cmd.arg("start")
            .arg("-D")
            .arg(self.pgdata())
            .arg("-l")
            .arg(&log)
            .args(["-w", "-t", "120", "-o", &server_opts]);
        self.run(cmd, format!("pg_ctl start -D {}", self.pgdata().display()))
            .map_err(|e| match e {
                ClusterError::CommandFailed {
                    command,
                    status,
                    mut output,
                } => {
                    if let Ok(text) = fs::read_to_string(&log) {
                        let tail: Vec<&str> = text.lines().rev().take(20).collect();
                        output.push_str("\nserver log (last lines):\n");
                        for line in tail.into_iter().rev() {
                            output.push_str(line);
                            output.push('\n');
                        }
                    }
                    ClusterError::CommandFailed {
                        command,
                        status,
                        output,
                    }
                }
                other => other,
            })?;
        self.port = port;
        tracing::info!(port, data_dir = %self.data_dir.display(), "started the embedded PostgreSQL cluster");
        Ok(())
    }

    /// Stops the server (fast shutdown: running transactions are rolled back).
    pub fn stop(&self) -> Result<(), ClusterError> {
        let mut cmd = self.command("pg_ctl");
        cmd.arg("stop")
            .arg("-D")
            .arg(self.pgdata())
            .args(["-m", "fast", "-w"]);
        self.run(cmd, format!("pg_ctl stop -D {}", self.pgdata().display()))
            .map(|_| ())
    }

    /// Leaves the cluster: stops it if no other process uses it any more (we are its last user, so
    /// its owner), otherwise leaves it running for them. Returns whether it was stopped.
    pub fn release(mut self) -> Result<bool, ClusterError> {
        let _lock = DirLock::acquire(&self.data_dir.join("lock"))?;
        let Some(ours) = self.user_lock.take() else {
            return Ok(false);
        };
        drop(ours);
        let users = self.data_dir.join("users");
        match try_flock_file(&users, libc::LOCK_EX | libc::LOCK_NB)? {
            Some(_alone) => {
                if self.running_port()?.is_some() {
                    self.stop()?;
                    return Ok(true);
                }
                Ok(false)
            }
            None => {
                tracing::info!(data_dir = %self.data_dir.display(), "another process still uses the embedded cluster; leaving it running");
                Ok(false)
            }
        }
    }

    /// The shell command that stops this cluster, for watchdogs outliving this process.
    pub fn stop_command(&self) -> (PathBuf, Vec<String>, Option<(u32, u32)>) {
        (
            self.bin_dir.join("pg_ctl"),
            vec![
                "stop".into(),
                "-D".into(),
                self.pgdata().display().to_string(),
                "-m".into(),
                "immediate".into(),
            ],
            self.run_as.as_ref().map(|u| (u.uid, u.gid)),
        )
    }
}

/// Creates database `name` in the cluster if it does not exist.
pub async fn create_database_if_missing(cluster: &Cluster, name: &str) -> Result<(), sqlx::Error> {
    crate::storage::create_database_if_missing(cluster.url("postgres").expose_secret(), name).await
}

/// The directory holding `initdb` and `pg_ctl`: PATH first, then the newest
/// `/usr/lib/postgresql/<version>/bin`.
pub fn find_binaries() -> Result<PathBuf, ClusterError> {
    let has_both = |dir: &Path| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file();
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            if has_both(&dir) {
                // Resolve symlinks (Debian links /usr/local/bin/initdb into the versioned dir), so
                // that initdb finds the matching `postgres` next to itself.
                let real = dir.join("initdb").canonicalize().ok();
                if let Some(parent) = real.as_deref().and_then(Path::parent) {
                    if has_both(parent) {
                        return Ok(parent.to_path_buf());
                    }
                }
                return Ok(dir);
            }
        }
    }
    let mut versions: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v = e.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            has_both(&bin).then_some((v, bin))
        })
        .collect();
    versions.sort();
    versions
        .pop()
        .map(|(_, bin)| bin)
        .ok_or(ClusterError::BinariesNotFound)
}

fn server_user() -> Option<ServerUser> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return None;
    }
    for name in ["postgres", "nobody"] {
        let Ok(cname) = CString::new(name) else {
            continue;
        };
        // SAFETY: getpwnam gets a valid C string; the result is read before any other call.
        let pw = unsafe { libc::getpwnam(cname.as_ptr()) };
        if !pw.is_null() {
            // SAFETY: pw is non-null and points to a static passwd record.
            let (uid, gid) = unsafe { ((*pw).pw_uid, (*pw).pw_gid) };
            return Some(ServerUser {
                name: name.to_string(),
                uid,
                gid,
            });
        }
    }
    None
}

/// Every ancestor of `dir` must be enterable by the server's user (others' x bit, or ownership).
fn check_reachable(dir: &Path, user: &ServerUser) -> Result<(), ClusterError> {
    use std::os::unix::fs::MetadataExt;
    for ancestor in dir.ancestors().skip(1) {
        let Ok(meta) = fs::metadata(ancestor) else {
            continue;
        };
        let mode = meta.mode();
        let ok = if meta.uid() == user.uid {
            mode & 0o100 != 0
        } else if meta.gid() == user.gid {
            mode & 0o010 != 0
        } else {
            mode & 0o001 != 0
        };
        if !ok {
            return Err(ClusterError::Unreachable {
                user: user.name.clone(),
                path: dir.to_path_buf(),
            });
        }
    }
    Ok(())
}

fn read_or_create_password(data_dir: &Path) -> Result<SecretString, ClusterError> {
    let path = data_dir.join("password");
    if let Ok(text) = fs::read_to_string(&path) {
        let text = text.trim();
        if !text.is_empty() {
            return Ok(SecretString::from(text.to_string()));
        }
    }
    let password: String = rand::thread_rng()
        .sample_iter(&Alphanumeric)
        .take(32)
        .map(char::from)
        .collect();
    write_private(&path, &password)?;
    Ok(SecretString::from(password))
}

fn write_private(path: &Path, contents: &str) -> Result<(), ClusterError> {
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
        .map_err(io("cannot write", path))?;
    f.set_permissions(fs::Permissions::from_mode(0o600))
        .map_err(io("cannot set permissions", path))?;
    f.write_all(contents.as_bytes())
        .map_err(io("cannot write", path))
}

fn free_port() -> std::io::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

/// Opens `path` and takes `flock(op)` on it, waiting if need be.
fn flock_file(path: &Path, op: i32) -> Result<fs::File, ClusterError> {
    match try_flock_file(path, op)? {
        Some(f) => Ok(f),
        None => Err(ClusterError::Io {
            what: "cannot lock",
            path: path.to_path_buf(),
            source: std::io::Error::from(std::io::ErrorKind::WouldBlock),
        }),
    }
}

/// Opens `path` and tries `flock(op)`; `Ok(None)` if `op` has `LOCK_NB` and the lock is taken.
fn try_flock_file(path: &Path, op: i32) -> Result<Option<fs::File>, ClusterError> {
    use std::os::fd::AsRawFd;
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(path)
        .map_err(io("cannot open the lock file", path))?;
    // SAFETY: the descriptor is valid for the lifetime of `file`.
    if unsafe { libc::flock(file.as_raw_fd(), op) } != 0 {
        let e = std::io::Error::last_os_error();
        if e.kind() == std::io::ErrorKind::WouldBlock {
            return Ok(None);
        }
        return Err(ClusterError::Io {
            what: "cannot lock",
            path: path.to_path_buf(),
            source: e,
        });
    }
    Ok(Some(file))
}

/// The one `serve` of a data directory: an exclusive lock on `serve.lock` (holding our pid), held
/// until the process ends.
pub struct ServeLock(#[allow(dead_code)] fs::File);

impl ServeLock {
    pub fn acquire(data_dir: &Path) -> Result<ServeLock, ClusterError> {
        fs::create_dir_all(data_dir).map_err(io("cannot create the data directory", data_dir))?;
        let path = data_dir.join("serve.lock");
        match try_flock_file(&path, libc::LOCK_EX | libc::LOCK_NB)? {
            Some(mut file) => {
                use std::io::Seek;
                let _ = file.set_len(0);
                let _ = file.seek(std::io::SeekFrom::Start(0));
                let _ = write!(file, "{}", std::process::id());
                Ok(ServeLock(file))
            }
            None => {
                let pid = fs::read_to_string(&path)
                    .ok()
                    .map(|p| p.trim().to_string())
                    .filter(|p| !p.is_empty())
                    .map(|p| format!(" (pid {p})"))
                    .unwrap_or_default();
                Err(ClusterError::AlreadyServing {
                    dir: data_dir.to_path_buf(),
                    pid,
                })
            }
        }
    }
}

/// An exclusive `flock` on a file, released when dropped (or when the process dies).
struct DirLock(fs::File);

impl DirLock {
    fn acquire(path: &Path) -> Result<DirLock, ClusterError> {
        use std::os::fd::AsRawFd;
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(io("cannot open the lock file", path))?;
        // SAFETY: the descriptor is valid for the lifetime of `file`.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(ClusterError::Io {
                what: "cannot lock",
                path: path.to_path_buf(),
                source: std::io::Error::last_os_error(),
            });
        }
        Ok(DirLock(file))
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        // SAFETY: the descriptor is valid; unlocking an unlocked file is harmless.
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}
