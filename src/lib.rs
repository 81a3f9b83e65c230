//! spiceboard: hosts image-captioning challenges scored with SPICE.
//!
//! Where things live:
//! - [`cli`]: the `spiceboard` subcommands; [`startup`] builds the HTTP app and the pool;
//! - [`configuration`]: settings layered from defaults, a file and `APP_*` variables;
//! - [`disk`]: the free-space floor under uploads;
//! - [`cluster`]: the private PostgreSQL cluster used when no `DATABASE_URL` is given;
//! - [`domain`]: validated newtypes and the parsing of uploaded files ("parse, don't validate"),
//!   and the closed sets of words the database stores (a submission's kind and status, a job's
//!   kind and state), as enums;
//! - [`storage`]: every SQL statement; [`jobs`]: the job queue's workers;
//! - [`scoring`]: the only module that talks to the `spice` engine;
//! - [`actions`]: every action a person can take, one function each, shared by HTTP and the CLI;
//! - [`routes`]: HTTP handlers by area, thin; [`auth`]: passwords, sessions, CSRF, API tokens;
//! - [`charts`]: the pages' SVG charts, drawn on the server from the numbers the pages show.

pub mod actions;
pub mod auth;
pub mod charts;
pub mod cli;
pub mod cluster;
pub mod configuration;
pub mod disk;
pub mod domain;
pub mod jobs;
pub mod routes;
pub mod scoring;
pub mod seed;
pub mod startup;
pub mod storage;
pub mod telemetry;
