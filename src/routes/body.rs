//! Every request's body, bounded in bytes and in time whatever its framing (`Content-Length` or
//! chunked), and held until its answer is written.
//!
//! actix-web bounds a request's head (`client_request_timeout`) but not its body: a client that
//! sends the first bytes of a body and then nothing, or one byte every few seconds, kept its
//! handler waiting for good, and with it whatever the handler held (a team's upload turn and its
//! share of the upload memory budget; issue 35, F2). So every body is read through [`Bounded`]:
//! a body that sends nothing for `limits.body_idle_timeout_ms`, or that arrives slower on average
//! than `limits.body_min_bytes_per_second` once that first stretch has passed, is cut off, and its
//! reader sees an error that [`stalled`] recognises (answered 408). A body over
//! `limits.max_request_bytes` is cut off too (`PayloadError::Overflow`), whatever its reader's own
//! limits. The clock runs only while the handler reads: time it spends elsewhere (waiting for its
//! turn, say) is not the client's.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage};
use futures_util::Stream;
use tokio::time::{Instant, Sleep};

use crate::configuration::LimitSettings;

/// How much of a body, and how slowly, the server reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyLimits {
    /// The most bytes any body may have.
    pub max_bytes: u64,
    /// The longest a body may send nothing; also the start-up stretch before the rate counts.
    pub idle: Duration,
    /// The slowest average rate a body may keep after its first `idle` (0: no floor).
    pub min_bytes_per_second: u64,
    /// A multipart form's whole body must arrive within `idle` plus its size limit at this rate
    /// (0: no deadline; see [`BodyLimits::form_deadline`]).
    pub form_deadline_bytes_per_second: u64,
}

impl BodyLimits {
    pub fn from_settings(limits: &LimitSettings) -> BodyLimits {
        BodyLimits {
            max_bytes: limits.max_request_bytes as u64,
            idle: Duration::from_millis(limits.body_idle_timeout_ms.max(1)),
            min_bytes_per_second: limits.body_min_bytes_per_second,
            form_deadline_bytes_per_second: limits.form_deadline_bytes_per_second,
        }
    }

    /// How long a form of at most `max_bytes` may take to arrive: `idle` plus `max_bytes` at
    /// `form_deadline_bytes_per_second`. The floor rate alone let a body that keeps just above it
    /// hold what its handler holds for `max_bytes / min_bytes_per_second` (hours for a large
    /// limit); this bounds it by the size limit at a rate any real connection keeps.
    pub fn form_deadline(&self, max_bytes: u64) -> Option<Duration> {
        (self.form_deadline_bytes_per_second > 0).then(|| {
            self.idle
                + Duration::from_secs_f64(
                    max_bytes as f64 / self.form_deadline_bytes_per_second as f64,
                )
        })
    }
}

/// What a reader of a cut-off body is told: a `TimedOut` I/O error whose text says why.
fn stall_error(limits: &BodyLimits, idle: bool) -> PayloadError {
    let why = if idle {
        format!(
            "the request's body stalled: nothing arrived for {} ms; send it again",
            limits.idle.as_millis()
        )
    } else {
        format!(
            "the request's body arrived too slowly (under {} bytes per second); send it again",
            limits.min_bytes_per_second
        )
    };
    PayloadError::Io(std::io::Error::new(std::io::ErrorKind::TimedOut, why))
}

/// Why a body was cut off for its pace, if it was.
pub fn stalled(e: &PayloadError) -> Option<String> {
    match e {
        PayloadError::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => Some(io.to_string()),
        _ => None,
    }
}

/// A body cut off when it passes `max_bytes`, stalls, or slows below the floor.
pub struct Bounded<S> {
    inner: S,
    limits: BodyLimits,
    received: u64,
    /// When the reader first asked for the body, and when the last bytes came.
    started: Option<Instant>,
    last: Option<Instant>,
    timer: Option<Pin<Box<Sleep>>>,
    done: bool,
}

impl<S> Bounded<S> {
    pub fn new(inner: S, limits: BodyLimits) -> Bounded<S> {
        Bounded {
            inner,
            limits,
            received: 0,
            started: None,
            last: None,
            timer: None,
            done: false,
        }
    }

    /// When the body is cut off if nothing more comes: after `idle` without bytes, or when what
    /// has come is less than the floor rate allows for the time since the first `idle`.
    fn deadline(&self, started: Instant) -> (Instant, bool) {
        let idle = self.last.unwrap_or(started) + self.limits.idle;
        if self.limits.min_bytes_per_second == 0 {
            return (idle, true);
        }
        let earned =
            Duration::from_secs_f64(self.received as f64 / self.limits.min_bytes_per_second as f64);
        let slow = started + self.limits.idle + earned;
        if slow < idle {
            (slow, false)
        } else {
            (idle, true)
        }
    }
}

impl<S> Stream for Bounded<S>
where
    S: Stream<Item = Result<web::Bytes, PayloadError>> + Unpin,
{
    type Item = Result<web::Bytes, PayloadError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        let started = *this.started.get_or_insert_with(Instant::now);
        match Pin::new(&mut this.inner).poll_next(cx) {
            Poll::Ready(Some(Ok(chunk))) => {
                this.received += chunk.len() as u64;
                if this.received > this.limits.max_bytes {
                    this.done = true;
                    return Poll::Ready(Some(Err(PayloadError::Overflow)));
                }
                this.last = Some(Instant::now());
                Poll::Ready(Some(Ok(chunk)))
            }
            Poll::Ready(other) => {
                this.done = other.is_none();
                Poll::Ready(other)
            }
            Poll::Pending => {
                let (deadline, idle) = this.deadline(started);
                let timer = this
                    .timer
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
                if timer.deadline() != deadline {
                    timer.as_mut().reset(deadline);
                }
                match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        this.done = true;
                        Poll::Ready(Some(Err(stall_error(&this.limits, idle))))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

/// The body of a request, shared by the handler (which reads it) and the answer (which holds it).
struct HeldBody(Rc<RefCell<Payload>>);

impl Stream for HeldBody {
    type Item = Result<web::Bytes, PayloadError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Pin::new(&mut *self.0.borrow_mut()).poll_next(cx)
    }
}

/// An answer's body that holds the request's body until it has been written.
struct Holding {
    body: BoxBody,
    _request: HeldBody,
}

impl MessageBody for Holding {
    type Error = <BoxBody as MessageBody>::Error;

    fn size(&self) -> BodySize {
        self.body.size()
    }

    fn poll_next(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<web::Bytes, Self::Error>>> {
        Pin::new(&mut self.body).poll_next(cx)
    }
}

/// Middleware: the handler reads the body through [`Bounded`] (the limits of the app's
/// `BodyLimits`), and the answer holds the body until it is written. Actix reads a chunked body
/// that the handler left unread (a refused upload) to its end after answering, to keep the
/// connection; while the body is still held it closes the connection instead, after at most
/// `client_disconnect_timeout` (1 s) of discarding what is in flight. So a refused upload costs
/// the server about its cap, not the client's whole body.
pub async fn bound_and_hold(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let limits = req
        .app_data::<web::Data<BodyLimits>>()
        .map(|l| *l.get_ref())
        .unwrap_or_else(|| {
            BodyLimits::from_settings(&crate::configuration::Settings::defaults().limits)
        });
    let body = Rc::new(RefCell::new(req.take_payload()));
    let stream: Pin<Box<dyn Stream<Item = _>>> =
        Box::pin(Bounded::new(HeldBody(body.clone()), limits));
    req.set_payload(Payload::from(stream));
    let res = next.call(req).await?;
    Ok(res.map_body(|_, answer| Holding {
        body: answer.boxed(),
        _request: HeldBody(body),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;

    fn limits(idle_ms: u64, rate: u64) -> BodyLimits {
        BodyLimits {
            max_bytes: 10,
            idle: Duration::from_millis(idle_ms),
            min_bytes_per_second: rate,
            form_deadline_bytes_per_second: 0,
        }
    }

    fn chunks(
        parts: Vec<Result<web::Bytes, PayloadError>>,
    ) -> impl Stream<Item = Result<web::Bytes, PayloadError>> + Unpin {
        futures_util::stream::iter(parts)
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_sends_nothing_is_cut_off_after_the_idle_time() {
        let start = Instant::now();
        let mut body = Bounded::new(futures_util::stream::pending(), limits(5000, 0));
        let e = body.next().await.and_then(Result::err).expect("an error");
        assert!(stalled(&e).is_some_and(|w| w.contains("nothing arrived for 5000 ms")));
        assert_eq!(start.elapsed(), Duration::from_secs(5));
        assert!(body.next().await.is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn a_trickle_below_the_floor_rate_is_cut_off() {
        // One byte a second against a floor of 100 bytes a second: the idle time never passes,
        // but after the first 2 s each byte buys only 10 ms.
        let trickle = futures_util::stream::unfold((), |()| async {
            tokio::time::sleep(Duration::from_secs(1)).await;
            Some((Ok(web::Bytes::from_static(b"x")), ()))
        });
        let mut body = Bounded::new(Box::pin(trickle), limits(2000, 100));
        let start = Instant::now();
        let mut got = 0;
        let e = loop {
            match body.next().await {
                Some(Ok(b)) => got += b.len(),
                Some(Err(e)) => break e,
                None => panic!("the trickle ended"),
            }
        };
        assert!(stalled(&e).is_some_and(|w| w.contains("too slowly")), "{e}");
        assert_eq!((got, start.elapsed()), (2, Duration::from_millis(2020)));
    }

    #[tokio::test]
    async fn a_body_over_the_cap_is_cut_off_and_one_within_it_passes() {
        let full = |n: usize| Ok(web::Bytes::from(vec![b'x'; n]));
        let mut over = Bounded::new(chunks(vec![full(6), full(6)]), limits(5000, 0));
        assert!(matches!(over.next().await, Some(Ok(_))));
        assert!(matches!(
            over.next().await,
            Some(Err(PayloadError::Overflow))
        ));
        let within: Vec<_> = Bounded::new(chunks(vec![full(4), full(6)]), limits(5000, 0))
            .collect()
            .await;
        assert!(within.len() == 2 && within.iter().all(Result::is_ok));
    }
}
