//! Integration tests against a real PostgreSQL: one throwaway cluster per run, one fresh database
//! per test (cloned from a migrated template). See `helpers.rs`.

mod helpers;

mod accounts;
mod agreement;
mod attacks;
mod browser;
mod cancel;
mod charts;
mod cider_df;
mod cli;
mod coco_parity;
mod deletion;
mod downloads;
mod error_pages;
mod front_ends;
mod health;
mod leaderboard;
mod methods;
mod names;
mod operator;
mod organizer;
mod organizer_tables;
mod organizers;
mod page_details;
mod pages;
mod phases;
mod queue;
mod references;
mod scores;
mod security;
mod snapshot;
mod teams;
mod uncertainty;
mod uploads;
