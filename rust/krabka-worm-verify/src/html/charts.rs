//! The page's charts, inline SVG drawn from the report: each partition's
//! segments over time (a strip per partition, segments counted into time
//! bins so the page stays small for any archive), and how many archived
//! versions become deletable when.

use {
    super::{escape::Html, time},
    krabka_worm::PartitionVerifyReport,
    std::{collections::BTreeMap, fmt::Write as _},
};

/// Partitions drawn; the table lists them all.
const MAX_ROWS: usize = 60;
/// Time bins per strip.
const BINS: usize = 120;
/// Bars of the retention chart before dates are grouped by month.
const MAX_BARS: usize = 60;

const LABEL_WIDTH: usize = 230;
const PLOT_WIDTH: usize = 840;
const ROW_HEIGHT: usize = 18;

/// Each partition's segments over time, by their largest record timestamp.
pub fn segments_chart(partitions: &[PartitionVerifyReport]) -> String {
    let times = partitions
        .iter()
        .flat_map(|p| p.segments.iter().map(|s| s.max_timestamp_ms));
    let (Some(first), Some(last)) = (times.clone().min(), times.max()) else {
        return "<p class=\"muted\">No accepted segment to draw.</p>\n".to_owned();
    };
    let span = (last - first).max(1);
    let rows: Vec<&PartitionVerifyReport> = partitions.iter().take(MAX_ROWS).collect();
    let height = rows.len() * ROW_HEIGHT + 40;
    let width = LABEL_WIDTH + PLOT_WIDTH + 20;
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<figure id=\"segments-chart\"><svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" \
         width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\">\
         <title>Segments per partition over time</title>"
    );
    let bin_width = PLOT_WIDTH as f64 / BINS as f64;
    for (row, p) in rows.iter().enumerate() {
        let y = row * ROW_HEIGHT + 6;
        let _ = write!(
            svg,
            "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"end\" fill=\"#1d2330\">{}-{}</text>\
             <rect x=\"{LABEL_WIDTH}\" y=\"{y}\" width=\"{PLOT_WIDTH}\" height=\"{}\" fill=\"#eef0f4\"/>",
            LABEL_WIDTH - 8,
            y + 12,
            Html(&truncated(&p.topic, 28)),
            p.partition,
            ROW_HEIGHT - 4,
        );
        let mut bins = [0usize; BINS];
        for segment in &p.segments {
            let at = ((segment.max_timestamp_ms - first) as f64 / span as f64 * (BINS - 1) as f64)
                .round() as usize;
            bins[at.min(BINS - 1)] += 1;
        }
        let most = bins.iter().copied().max().unwrap_or(1).max(1);
        let color = if p
            .findings
            .iter()
            .any(|f| f.severity() == krabka_worm::Severity::Tampering)
        {
            "#b42318"
        } else {
            "#2456a6"
        };
        for (bin, &n) in bins.iter().enumerate().filter(|(_, n)| **n > 0) {
            let opacity = 0.35 + 0.65 * n as f64 / most as f64;
            let _ = write!(
                svg,
                "<rect x=\"{:.1}\" y=\"{y}\" width=\"{:.1}\" height=\"{}\" fill=\"{color}\" fill-opacity=\"{opacity:.2}\">\
                 <title>{n} segment(s) around {}</title></rect>",
                LABEL_WIDTH as f64 + bin as f64 * bin_width,
                bin_width.max(1.5),
                ROW_HEIGHT - 4,
                time::utc(first + (span as f64 * bin as f64 / (BINS - 1) as f64) as i64),
            );
        }
    }
    let axis = rows.len() * ROW_HEIGHT + 24;
    let _ = writeln!(
        svg,
        "<text x=\"{LABEL_WIDTH}\" y=\"{axis}\" font-size=\"11\" fill=\"#5b6577\">{}</text>\
         <text x=\"{}\" y=\"{axis}\" font-size=\"11\" text-anchor=\"end\" fill=\"#5b6577\">{}</text>\
         </svg><figcaption class=\"muted\">Each row a partition, each mark the segments whose newest record \
         falls in that time (darker: more); red rows have evidence of tampering.{}</figcaption></figure>",
        time::utc(first),
        LABEL_WIDTH + PLOT_WIDTH,
        time::utc(last),
        if partitions.len() > MAX_ROWS {
            format!(
                " The first {MAX_ROWS} of {} partitions are drawn.",
                partitions.len()
            )
        } else {
            String::new()
        },
    );
    svg
}

/// Archived versions by the day (or month) their retention ends.
pub fn retention_chart(dates: &[&str]) -> String {
    let mut by_day: BTreeMap<&str, usize> = BTreeMap::new();
    for date in dates {
        *by_day.entry(date.get(..10).unwrap_or(date)).or_default() += 1;
    }
    let mut unit = "day";
    if by_day.len() > MAX_BARS {
        let mut by_month: BTreeMap<&str, usize> = BTreeMap::new();
        for (day, n) in &by_day {
            *by_month.entry(day.get(..7).unwrap_or(day)).or_default() += n;
        }
        by_day = by_month;
        unit = "month";
    }
    let bars: Vec<(&str, usize)> = by_day.into_iter().take(MAX_BARS).collect();
    let most = bars.iter().map(|(_, n)| *n).max().unwrap_or(1).max(1);
    let bar = (PLOT_WIDTH / bars.len().max(1)).clamp(6, 60);
    let width = bars.len() * bar + 80;
    let height = 200;
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<figure id=\"retention-chart\"><svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"{width}\" \
         height=\"{height}\" viewBox=\"0 0 {width} {height}\"><title>Archived versions by the {unit} they become deletable</title>"
    );
    for (i, (date, n)) in bars.iter().enumerate() {
        let h = (140 * n / most).max(2);
        let x = 40 + i * bar;
        let _ = write!(
            svg,
            "<rect x=\"{x}\" y=\"{}\" width=\"{}\" height=\"{h}\" fill=\"#2456a6\"><title>{n} version(s) deletable from {}</title></rect>",
            160 - h,
            bar.saturating_sub(2).max(2),
            Html(date),
        );
        if i == 0 || i + 1 == bars.len() {
            let _ = write!(
                svg,
                "<text x=\"{x}\" y=\"178\" font-size=\"11\" fill=\"#5b6577\">{}</text>",
                Html(date)
            );
        }
    }
    let _ = writeln!(
        svg,
        "<text x=\"4\" y=\"20\" font-size=\"11\" fill=\"#5b6577\">{most}</text></svg>\
         <figcaption class=\"muted\">Archived object versions by the {unit} their retain-until date ends: from then \
         the bucket lets them be deleted.</figcaption></figure>"
    );
    svg
}

fn truncated(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max - 1).collect();
    out.push('…');
    out
}
