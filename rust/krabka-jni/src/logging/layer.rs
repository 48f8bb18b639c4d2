//! The two doors into the bridge: a `tracing` layer and a `log` logger.

use {
    super::{
        NativeLog, global,
        render::{FieldWriter, MessageWriter},
        repeats::{self, CallSite},
        targets::LogLevel,
    },
    std::{fmt::Write, sync::Arc},
    tracing::{
        Event, Metadata, Subscriber,
        level_filters::LevelFilter,
        span::{Attributes, Id, Record},
        subscriber::Interest,
    },
    tracing_subscriber::{
        layer::{Context, Layer},
        registry::LookupSpan,
    },
};

/// The rendered fields of a span, kept in its extensions.
#[derive(Debug, Default)]
struct SpanFields(String);

/// The `tracing` layer: filters by the target table, renders events with
/// their spans' fields (`span{a=1}:inner{b=2}: message c=3`) and queues
/// them.
#[derive(Debug)]
pub struct NativeLayer {
    log: Arc<NativeLog>,
}

impl NativeLayer {
    /// A layer that feeds `log`.
    #[must_use]
    pub fn new(log: Arc<NativeLog>) -> Self {
        Self { log }
    }

    fn wants(&self, metadata: &Metadata<'_>) -> bool {
        let level = LogLevel::of_tracing(*metadata.level());
        if metadata.is_span() {
            // Spans only carry context: made when some target would log at
            // their level.
            level <= self.log.max_level()
        } else {
            self.log.enabled(metadata.target(), level)
        }
    }
}

impl<S> Layer<S> for NativeLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if self.wants(metadata) {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, metadata: &Metadata<'_>, _ctx: Context<'_, S>) -> bool {
        self.wants(metadata)
    }

    /// TRACE: every call site reaches [`Self::register_callsite`] once, so
    /// its target enters the table and Java can enable any level of it; a
    /// disabled call site then costs the check of its cached interest.
    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(LevelFilter::TRACE)
    }

    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let mut fields = FieldWriter::default();
        attrs.record(&mut fields);
        let mut text = fields.message;
        text.push_str(&fields.fields);
        span.extensions_mut().insert(SpanFields(text));
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let mut fields = FieldWriter::default();
        values.record(&mut fields);
        let mut extensions = span.extensions_mut();
        if let Some(SpanFields(text)) = extensions.get_mut::<SpanFields>() {
            text.push_str(&fields.fields);
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let metadata = event.metadata();
        let level = LogLevel::of_tracing(*metadata.level());
        let render_scope = |out: &mut String| {
            if let Some(scope) = ctx.event_scope(event) {
                for span in scope.from_root() {
                    let extensions = span.extensions();
                    let fields = extensions
                        .get::<SpanFields>()
                        .map_or("", |SpanFields(text)| text.trim_start());
                    let _ = write!(out, "{}{{{fields}}}:", span.name());
                }
                if !out.is_empty() {
                    out.push(' ');
                }
            }
        };
        let render = |out: &mut String| {
            render_scope(out);
            let mut fields = FieldWriter::default();
            event.record(&mut fields);
            out.push_str(&fields.message);
            out.push_str(&fields.fields);
        };
        if !repeats::applies(metadata.target(), level) {
            self.log.submit(metadata.target(), level, render);
            return;
        }
        // Its message (without its fields) is part of its kind, except in
        // retry chatter, whose messages carry the attempt's numbers.
        let mut message = MessageWriter::default();
        if !repeats::is_retry_target(metadata.target()) {
            event.record(&mut message);
        }
        let site = CallSite::new(
            metadata.target(),
            metadata.module_path(),
            metadata.file(),
            metadata.line(),
            Some(&message.0),
        );
        self.log.submit_at(site, metadata.target(), level, render);
    }
}

/// The `log` logger: jni-rs, reqwest and other crates that use `log` reach
/// the same queue, filtered by the same table.
#[derive(Debug)]
pub struct LogBridge;

impl log::Log for LogBridge {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        global()
            .is_some_and(|log| log.enabled(metadata.target(), LogLevel::of_log(metadata.level())))
    }

    fn log(&self, record: &log::Record<'_>) {
        if let Some(log) = global() {
            submit_log_record(log, record);
        }
    }

    fn flush(&self) {}
}

/// Renders and queues a `log` record into `log`.
pub fn submit_log_record(log: &NativeLog, record: &log::Record<'_>) {
    let level = LogLevel::of_log(record.level());
    let render = |out: &mut String| {
        let _ = write!(out, "{}", record.args());
    };
    if !repeats::applies(record.target(), level) {
        log.submit(record.target(), level, render);
        return;
    }
    // No message apart from its arguments: the call site is the kind.
    let site = CallSite::new(
        record.target(),
        record.module_path(),
        record.file(),
        record.line(),
        None,
    );
    log.submit_at(site, record.target(), level, render);
}
