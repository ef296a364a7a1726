//! A request body that must arrive whole before a deadline: a client that stalls mid-body
//! does not hold its buffer and its connection for ever.

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use http_body::{Body, Frame, SizeHint};
use tokio::time::{Instant, Sleep};

/// `inner`, failing with [`BodyTooSlow`] once `deadline` has passed before its end.
pub(super) struct DeadlineBody<B> {
    inner: B,
    deadline: Instant,
    /// Started only when the body first waits: a body that arrived whole costs no timer.
    timer: Option<Pin<Box<Sleep>>>,
    limit: Duration,
}

impl<B> DeadlineBody<B> {
    pub(super) fn new(inner: B, limit: Duration) -> Self {
        Self {
            inner,
            deadline: Instant::now() + limit,
            timer: None,
            limit,
        }
    }
}

/// Why a request body failed.
#[derive(Debug)]
pub(super) enum DeadlineError<E> {
    /// Reading it failed.
    Read(E),
    /// It did not arrive in time.
    TooSlow(BodyTooSlow),
}

/// The body did not arrive whole within its deadline.
#[derive(Debug)]
pub(super) struct BodyTooSlow(Duration);

impl<E: fmt::Display> fmt::Display for DeadlineError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Read(error) => error.fmt(f),
            Self::TooSlow(BodyTooSlow(limit)) => {
                write!(f, "the request body did not arrive within {limit:?}")
            }
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for DeadlineError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Read(error) => Some(error),
            Self::TooSlow(_) => None,
        }
    }
}

impl<B: Body + Unpin> Body for DeadlineBody<B> {
    type Data = B::Data;
    type Error = DeadlineError<B::Error>;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, Self::Error>>> {
        let this = self.get_mut();
        if let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|frame| frame.map_err(DeadlineError::Read)));
        }
        let deadline = this.deadline;
        let timer = this
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => {
                Poll::Ready(Some(Err(DeadlineError::TooSlow(BodyTooSlow(this.limit)))))
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use http_body_util::BodyExt;

    /// A body that sends one chunk and then never ends, like a stalled client.
    struct Stalled(Option<Bytes>);

    impl Body for Stalled {
        type Data = Bytes;
        type Error = std::convert::Infallible;
        fn poll_frame(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            match self.get_mut().0.take() {
                Some(chunk) => Poll::Ready(Some(Ok(Frame::data(chunk)))),
                None => Poll::Pending,
            }
        }
    }

    #[tokio::test]
    async fn a_stalled_body_fails_at_its_deadline_and_a_whole_one_arrives() {
        let limit = Duration::from_millis(50);
        let stalled = DeadlineBody::new(Stalled(Some(Bytes::from("{\"a\":"))), limit);
        let error = stalled.collect().await.expect_err("a stalled body fails");
        assert!(matches!(error, DeadlineError::TooSlow(_)), "{error}");
        assert_eq!(
            error.to_string(),
            "the request body did not arrive within 50ms"
        );

        let whole = DeadlineBody::new(
            http_body_util::Full::new(Bytes::from("{}")),
            Duration::from_secs(1),
        );
        let bytes = whole
            .collect()
            .await
            .expect("a whole body arrives")
            .to_bytes();
        assert_eq!(bytes, "{}");
    }
}
