//! The pages' charts, drawn on the server as SVG (issue 34): no script, no chart library.
//!
//! Each function takes numbers a page already has and returns one `<svg role="img">` whose
//! `<title>` names the chart and whose `<desc>` says in words what it shows (the best score and
//! its date, the counts, what was left out), so a screen reader, a text browser and the page's
//! source get the picture too. Every mark also carries a `<title>`, the tooltip a mouse shows.
//!
//! - [`best_over_time`]: the leaderboard's best team entry by the day it was scored, a step line;
//! - [`category_profile`]: an entry's F in each SPICE category beside the Human row's, a dot plot;
//! - [`scatter`]: a metric's score against human ratings (the metric agreement page);
//! - [`histogram`]: per-image SPICE differences of two entries (the compare page).
//!
//! Drawings are [`WIDTH`] units wide; the page's CSS (`svg.chart` in style.css) scales them to
//! their column, so 13-unit text stays readable on a 390 px phone. The colours are the Okabe-Ito
//! palette's blue and vermillion (`--chart-a`, `--chart-b`), always doubled by a shape or a dash
//! for readers who do not tell them apart. A value that is not a number (an undefined category,
//! NaN) is never drawn as 0: it is left out, and the description says so.

use std::fmt::Write;

use chrono::{DateTime, Utc};

use crate::routes::view::{score, signed};

/// The width of every drawing, in SVG units.
pub const WIDTH: f64 = 420.0;
/// Space for the y axis's labels ("0.250") on the left, and a margin on the right.
const LEFT: f64 = 46.0;
const RIGHT: f64 = 18.0;
/// The visible heading's band at the top.
const TOP: f64 = 28.0;
/// One line of a legend or of a dot plot.
const LINE: f64 = 18.0;

/// A finished chart: SVG markup whose every text was escaped, to be inserted unescaped
/// (`{{ chart|safe }}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chart(String);

impl Chart {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Chart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Text for SVG inside HTML, as content or as a quoted attribute value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A name cut to `max` characters for a legend, with "…" where cut (tooltips and the description
/// keep it whole).
fn clip(name: &str, max: usize) -> String {
    if name.chars().count() <= max {
        name.to_string()
    } else {
        name.chars().take(max - 1).collect::<String>() + "…"
    }
}

fn finite(x: Option<f64>) -> Option<f64> {
    x.filter(|v| v.is_finite())
}

/// "1 entry", "3 entries".
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The elements of one drawing, written in order (later ones on top).
struct Svg {
    out: String,
}

impl Svg {
    /// Opens the drawing: its accessible name and description, and its visible heading.
    fn new(id: &str, height: f64, title: &str, desc: &str) -> Svg {
        let (id, title) = (escape(id), escape(title));
        let mut out = String::new();
        let _ = write!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"{id}\" role=\"img\" \
             aria-labelledby=\"{id}-title\" aria-describedby=\"{id}-desc\" \
             viewBox=\"0 0 {WIDTH} {height:.0}\" width=\"100%\">\
             <title id=\"{id}-title\">{title}</title><desc id=\"{id}-desc\">{}</desc>\
             <text class=\"heading\" x=\"0\" y=\"16\">{title}</text>",
            escape(desc)
        );
        Svg { out }
    }

    fn text(&mut self, x: f64, y: f64, anchor: &str, class: &str, text: &str) {
        let _ = write!(
            self.out,
            "<text class=\"{class}\" x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"{anchor}\">{}</text>",
            escape(text)
        );
    }

    fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), class: &str) {
        let _ = write!(
            self.out,
            "<line class=\"{class}\" x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\"/>"
        );
    }

    /// A mark for `n` data points (`data-n`) with its tooltip; `None`: a legend's swatch.
    fn circle(&mut self, (x, y): (f64, f64), r: f64, class: &str, data: Option<(usize, &str)>) {
        let _ = write!(
            self.out,
            "<circle class=\"{class}\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{r:.1}\""
        );
        self.close("circle", data);
    }

    /// A diamond centred on (x, y): the second series' mark, told apart by its shape too.
    fn diamond(&mut self, (x, y): (f64, f64), r: f64, class: &str, data: Option<(usize, &str)>) {
        let _ = write!(
            self.out,
            "<path class=\"{class}\" d=\"M{x:.1} {:.1}L{:.1} {y:.1}L{x:.1} {:.1}L{:.1} {y:.1}Z\"",
            y - r,
            x + r,
            y + r,
            x - r,
        );
        self.close("path", data);
    }

    /// Ends a mark's element: its count and tooltip, or nothing for a swatch.
    fn close(&mut self, element: &str, data: Option<(usize, &str)>) {
        match data {
            Some((n, tip)) => {
                let _ = write!(
                    self.out,
                    " data-n=\"{n}\"><title>{}</title></{element}>",
                    escape(tip)
                );
            }
            None => self.out.push_str("/>"),
        }
    }

    fn rect(&mut self, (x, y): (f64, f64), (w, h): (f64, f64), class: &str, n: usize, tip: &str) {
        let _ = write!(
            self.out,
            "<rect class=\"{class}\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" \
             data-n=\"{n}\"><title>{}</title></rect>",
            escape(tip)
        );
    }

    fn path(&mut self, d: &str, class: &str) {
        let _ = write!(self.out, "<path class=\"{class}\" d=\"{d}\"/>");
    }

    /// A legend line at height `y`: a swatch drawn by `swatch` at (x, y), then the words.
    fn legend(&mut self, y: f64, swatch: impl FnOnce(&mut Svg, f64, f64), words: &str) {
        swatch(self, LEFT, y - 4.0);
        self.text(LEFT + 30.0, y, "start", "legend", words);
    }

    /// A message in the middle of an empty plot.
    fn empty(&mut self, plot: &Plot, words: &str) {
        let (x, y) = (
            (plot.left + plot.right) / 2.0,
            (plot.top + plot.bottom) / 2.0,
        );
        self.text(x, y, "middle", "note", words);
    }

    fn finish(mut self) -> Chart {
        self.out.push_str("</svg>");
        Chart(self.out)
    }
}

/// A linear map from data values to SVG units.
#[derive(Debug, Clone, Copy)]
struct Scale {
    domain: (f64, f64),
    range: (f64, f64),
}

impl Scale {
    fn at(&self, v: f64) -> f64 {
        let (d0, d1) = self.domain;
        let (r0, r1) = self.range;
        r0 + (v - d0) / (d1 - d0) * (r1 - r0)
    }
}

/// The plot area of a chart with two axes: its frame, and the scales that map the data into it.
/// The scales stop `inset` (x, y) short of the frame, so that marks at the ends of a domain are
/// not drawn over the axes and their labels.
struct Plot {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
    x: Scale,
    y: Scale,
}

impl Plot {
    fn new(
        (left, top, right, bottom): (f64, f64, f64, f64),
        x: (f64, f64),
        y: (f64, f64),
        inset: (f64, f64),
    ) -> Plot {
        Plot {
            left,
            right,
            top,
            bottom,
            x: Scale {
                domain: x,
                range: (left + inset.0, right - inset.0),
            },
            y: Scale {
                domain: y,
                range: (bottom - inset.1, top + inset.1),
            },
        }
    }
}

/// A round step (1, 2, 2.5 or 5 times a power of ten) that cuts `span` into about `parts`.
fn nice_step(span: f64, parts: usize) -> f64 {
    let raw = span / parts.max(1) as f64;
    let power = 10f64.powf(raw.log10().floor());
    let m = raw / power;
    let nice = [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .find(|&n| m <= n + 1e-9)
        .unwrap_or(10.0);
    nice * power
}

/// An axis over the values `lo..=hi`: its domain, widened to round ends, and its tick values.
/// Equal ends are widened around the value (one point, or every value the same).
fn axis(lo: f64, hi: f64, parts: usize) -> ((f64, f64), Vec<f64>) {
    let (lo, hi) = if hi - lo < 1e-12 {
        // Scores and ratings that are never negative get no negative ticks.
        let pad = (lo.abs() * 0.1).max(0.05);
        let floor = if lo >= 0.0 { 0.0 } else { f64::NEG_INFINITY };
        ((lo - pad).max(floor), hi + pad)
    } else {
        (lo, hi)
    };
    let step = nice_step(hi - lo, parts);
    // A hair of tolerance: 0.15 / 0.025 is 5.999...
    let (first, last) = ((lo / step + 1e-9).floor(), (hi / step - 1e-9).ceil());
    let ticks = (first as i64..=last as i64)
        .map(|k| k as f64 * step)
        .collect();
    ((first * step, last * step), ticks)
}

/// A tick's label: as many decimals as the step needs (at most three, as the tables), a plus
/// sign on positive values where the axis is a difference (as the compare page writes them).
fn tick_label(v: f64, step: f64, plus: bool) -> String {
    let decimals = (0..=3)
        .find(|&d| {
            let scaled = step * 10f64.powi(d);
            (scaled - scaled.round()).abs() < 1e-6
        })
        .unwrap_or(3) as usize;
    let v = if v.abs() < step * 1e-6 { 0.0 } else { v };
    let text = format!("{v:.decimals$}");
    if plus && v > 0.0 {
        format!("+{text}")
    } else {
        // A minus sign, as the pages write differences ("A − B", "−0.012").
        text.replacen('-', "\u{2212}", 1)
    }
}

/// Draws the y axis: a grid line and a label per tick.
fn y_axis(svg: &mut Svg, plot: &Plot, ticks: &[f64], plus: bool) {
    let step = ticks.get(1).zip(ticks.first()).map_or(1.0, |(b, a)| b - a);
    for &t in ticks {
        let y = plot.y.at(t);
        svg.line((plot.left, y), (plot.right, y), "grid");
        svg.text(
            plot.left - 6.0,
            y + 4.0,
            "end",
            "tick",
            &tick_label(t, step, plus),
        );
    }
}

/// Draws the x axis's ticks and labels under the plot.
fn x_axis(svg: &mut Svg, plot: &Plot, ticks: &[f64], plus: bool) {
    let step = ticks.get(1).zip(ticks.first()).map_or(1.0, |(b, a)| b - a);
    let y = plot.bottom;
    svg.line((plot.left, y), (plot.right, y), "axis");
    for &t in ticks {
        let x = plot.x.at(t);
        svg.line((x, y), (x, y + 4.0), "axis");
        svg.text(x, y + 16.0, "middle", "tick", &tick_label(t, step, plus));
    }
}

fn day(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d").to_string()
}

/// One leaderboard entry for [`best_over_time`]: its name, when it was scored, its score in the
/// ranking column (`None`: undefined).
#[derive(Debug, Clone)]
pub struct Dated<'a> {
    pub name: &'a str,
    pub at: DateTime<Utc>,
    pub score: Option<f64>,
}

/// A row drawn as a level line across a chart (the Human row, a baseline): `kind` and name say
/// what it is ("Human", "Baseline Nearest neighbour").
#[derive(Debug, Clone)]
pub struct Level<'a> {
    pub kind: &'a str,
    pub name: &'a str,
    pub score: f64,
}

impl Level<'_> {
    fn words(&self) -> String {
        if self.name == self.kind || self.name.is_empty() {
            self.kind.to_string()
        } else {
            format!("{} {}", self.kind, self.name)
        }
    }
}

/// The leaderboard's best team entry over time: each entry is a dot at the time it was scored
/// (UTC) and its score in the ranking column `metric`; a step line follows the best score so
/// far, rising at each new best (a filled dot), to the last entry's time. `levels` (the Human row,
/// baselines) are dashed lines across. Entries without a score are left out and counted.
pub fn best_over_time(
    id: &str,
    metric: &str,
    split: &str,
    entries: &[Dated<'_>],
    levels: &[Level<'_>],
) -> Chart {
    let mut scored: Vec<(&Dated<'_>, f64)> = entries
        .iter()
        .filter_map(|e| finite(e.score).map(|s| (e, s)))
        .collect();
    scored.sort_by_key(|(e, _)| e.at);
    let left_out = entries.len() - scored.len();
    let levels: Vec<&Level<'_>> = levels.iter().filter(|l| l.score.is_finite()).collect();
    // The entries that set a new best, in time order.
    let mut records: Vec<(&Dated<'_>, f64)> = Vec::new();
    let mut best = f64::NEG_INFINITY;
    for &(e, s) in &scored {
        if s > best {
            best = s;
            records.push((e, s));
        }
    }

    let title = format!("Best {metric} on {split} over time");
    let mut desc = match (records.last(), scored.first(), scored.last()) {
        (Some(&(best, s)), Some(&(first, _)), Some(&(last, _))) => format!(
            "The best team entry's {metric} so far, by the day each entry was scored (UTC): \
             {} from {} to {}, {} to a new best. The best is {} by {}, scored {}.",
            count(scored.len(), "entry", "entries"),
            day(first.at),
            day(last.at),
            count(records.len(), "step", "steps"),
            score(Some(s)),
            best.name,
            day(best.at)
        ),
        _ => format!("No team entry has a {metric} score yet."),
    };
    for l in &levels {
        let _ = write!(desc, " {}: {}.", l.words(), score(Some(l.score)));
    }
    if left_out > 0 {
        let _ = write!(
            desc,
            " {} without a {metric} score left out.",
            count(left_out, "entry", "entries")
        );
    }

    let mut legend: Vec<(Swatch, String)> = Vec::new();
    if !scored.is_empty() {
        legend.push((
            Swatch::Best,
            "Best so far (a filled dot: a new best)".into(),
        ));
        if scored.len() > records.len() {
            legend.push((Swatch::Entry, "Another team entry".into()));
        }
    }
    legend.extend(levels.iter().map(|l| {
        (
            Swatch::Level(level_class(l)),
            format!("{}: {}", clip(&l.words(), 40), score(Some(l.score))),
        )
    }));
    let plot_bottom = TOP + 170.0;
    let height = plot_bottom + 40.0 + LINE * legend.len() as f64;
    let mut svg = Svg::new(id, height, &title, &desc);

    let values = scored
        .iter()
        .map(|(_, s)| *s)
        .chain(levels.iter().map(|l| l.score));
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    let ((y0, y1), y_ticks) = if lo.is_finite() {
        axis(lo, hi, 4)
    } else {
        axis(0.0, 1.0, 4)
    };
    // Time runs left to right, with a margin so the first and last dots are not on the edges;
    // a single day still gets a width.
    let seconds = |t: DateTime<Utc>| t.timestamp() as f64;
    let (t0, t1) = match (scored.first(), scored.last()) {
        (Some((a, _)), Some((b, _))) => (seconds(a.at), seconds(b.at)),
        _ => (0.0, 1.0),
    };
    let pad = ((t1 - t0) * 0.05).max(6.0 * 3600.0);
    let plot = Plot::new(
        (LEFT, TOP + 8.0, WIDTH - RIGHT, plot_bottom),
        (t0 - pad, t1 + pad),
        (y0, y1),
        (0.0, 6.0),
    );
    y_axis(&mut svg, &plot, &y_ticks, false);
    svg.line((LEFT, plot_bottom), (WIDTH - RIGHT, plot_bottom), "axis");
    // Dates under the first and last entries (and one between when they are days apart).
    if let (Some((first, _)), Some((last, _))) = (scored.first(), scored.last()) {
        let mut labels = vec![(first.at, "start")];
        if day(first.at) != day(last.at) {
            let middle = first.at + (last.at - first.at) / 2;
            if (last.at - first.at).num_days() >= 4 {
                labels.push((middle, "middle"));
            }
            labels.push((last.at, "end"));
        } else {
            labels[0].1 = "middle";
        }
        for (t, anchor) in labels {
            let x = plot.x.at(seconds(t));
            svg.line((x, plot_bottom), (x, plot_bottom + 4.0), "axis");
            svg.text(x, plot_bottom + 16.0, anchor, "tick", &day(t));
        }
    }
    svg.text(
        (LEFT + WIDTH - RIGHT) / 2.0,
        plot_bottom + 32.0,
        "middle",
        "axis-title",
        "scored (UTC)",
    );
    for l in &levels {
        let y = plot.y.at(l.score);
        svg.line((LEFT, y), (WIDTH - RIGHT, y), level_class(l));
    }
    if scored.is_empty() {
        svg.empty(&plot, "no team entry yet");
    }
    if let (Some(&(first, s)), Some(&(last, _))) = (records.first(), scored.last()) {
        let mut d = format!("M{:.1} {:.1}", plot.x.at(seconds(first.at)), plot.y.at(s));
        for &(e, s) in &records[1..] {
            let _ = write!(d, "H{:.1}V{:.1}", plot.x.at(seconds(e.at)), plot.y.at(s));
        }
        let _ = write!(d, "H{:.1}", plot.x.at(seconds(last.at)));
        svg.path(&d, "step");
    }
    let is_record = |e: &Dated<'_>| records.iter().any(|(r, _)| std::ptr::eq(*r, e));
    let tip =
        |e: &Dated<'_>, s: f64| format!("{}: {}, scored {}", e.name, score(Some(s)), day(e.at));
    for &(e, s) in scored.iter().filter(|(e, _)| !is_record(e)) {
        let at = (plot.x.at(seconds(e.at)), plot.y.at(s));
        svg.circle(at, 3.0, "entry", Some((1, &tip(e, s))));
    }
    for &(e, s) in &records {
        let at = (plot.x.at(seconds(e.at)), plot.y.at(s));
        svg.circle(at, 4.5, "record", Some((1, &tip(e, s))));
    }
    for (k, (swatch, words)) in legend.iter().enumerate() {
        let y = plot_bottom + 40.0 + LINE * (k as f64 + 1.0) - 4.0;
        svg.legend(
            y,
            |s, x, y| match swatch {
                Swatch::Best => {
                    s.line((x, y), (x + 24.0, y), "step");
                    s.circle((x + 12.0, y), 4.5, "record", None);
                }
                Swatch::Entry => s.circle((x + 12.0, y), 3.0, "entry", None),
                Swatch::Level(class) => s.line((x, y), (x + 24.0, y), class),
            },
            words,
        );
    }
    svg.finish()
}

/// What a legend line of [`best_over_time`] shows beside its words.
enum Swatch {
    Best,
    Entry,
    Level(&'static str),
}

/// The Human row is dashed, baselines dotted (style.css).
fn level_class(l: &Level<'_>) -> &'static str {
    if l.kind == "Human" {
        "level human"
    } else {
        "level baseline"
    }
}

/// One row of [`category_profile`]: a category's F for the entry and for the Human row.
#[derive(Debug, Clone)]
pub struct Category<'a> {
    pub name: &'a str,
    pub entry: Option<f64>,
    pub human: Option<f64>,
}

/// An entry's F in each SPICE category (a blue dot) beside the Human row's (a vermillion
/// diamond), one row per category, on a scale from 0. An undefined F (the references have no
/// tuple of the kind) is written "undefined" in its row, never drawn at 0. `human` names the
/// row compared with, or is `None` when there is none (then `Category::human` is not read; the
/// page says why).
pub fn category_profile(
    id: &str,
    entry: &str,
    human: Option<&str>,
    rows: &[Category<'_>],
) -> Chart {
    let human_of = |r: &Category<'_>| human.and(finite(r.human));
    let title = match human {
        Some(h) => format!("F per category: {entry} and {h}"),
        None => format!("F per category: {entry}"),
    };
    let mut desc = format!("{entry}'s F-score in each SPICE category");
    if let Some(h) = human {
        let _ = write!(desc, ", beside the {h} row's");
    }
    desc.push_str(": ");
    let parts: Vec<String> = rows
        .iter()
        .map(|r| {
            let value = |v: Option<f64>| match finite(v) {
                Some(v) => score(Some(v)),
                None => "undefined".to_string(),
            };
            match human {
                Some(h) => format!("{} {} ({h} {})", r.name, value(r.entry), value(r.human)),
                None => format!("{} {}", r.name, value(r.entry)),
            }
        })
        .collect();
    desc.push_str(&parts.join("; "));
    desc.push('.');
    if rows.is_empty() {
        desc = format!("{entry} has no scores yet.");
    }
    let undefined = rows
        .iter()
        .filter(|r| finite(r.entry).is_none() || (human.is_some() && human_of(r).is_none()))
        .count();
    if undefined > 0 {
        desc.push_str(
            " Undefined: the references have no tuple of that kind, so there is no score \
             (not 0).",
        );
    }

    // The category names end, and the plot begins, here.
    let labels = 84.0;
    let plot_top = TOP + 6.0;
    let row_height = 24.0;
    let plot_bottom = plot_top + row_height * rows.len().max(1) as f64;
    let legend_lines = 1 + usize::from(human.is_some());
    let height = plot_bottom + 26.0 + LINE * legend_lines as f64;
    let mut svg = Svg::new(id, height, &title, &desc);
    let hi = rows
        .iter()
        .flat_map(|r| [finite(r.entry), human_of(r)])
        .flatten()
        .fold(0.0f64, f64::max);
    let ((_, x1), ticks) = axis(0.0, hi.max(0.1), 4);
    // F from 0 at the frame's left edge; the rows are placed by hand.
    let plot = Plot::new(
        (labels, plot_top, WIDTH - RIGHT, plot_bottom),
        (0.0, x1),
        (0.0, 1.0),
        (0.0, 0.0),
    );
    for &t in &ticks {
        let x = plot.x.at(t);
        svg.line((x, plot_top), (x, plot_bottom), "grid");
    }
    x_axis(&mut svg, &plot, &ticks, false);
    if rows.is_empty() {
        svg.empty(&plot, "no scores yet");
    }
    let (left, right) = (plot.left, plot.right);
    for (k, r) in rows.iter().enumerate() {
        let y = plot_top + row_height * (k as f64 + 0.5);
        svg.text(left - 8.0, y + 4.0, "end", "label", r.name);
        svg.line((left, y), (right, y), "row");
        let (e, h) = (finite(r.entry), human_of(r));
        if let (Some(e), Some(h)) = (e, h) {
            svg.line((plot.x.at(e), y), (plot.x.at(h), y), "gap");
        }
        if let Some(h) = h {
            let tip = format!(
                "{}, {}: {}",
                human.unwrap_or_default(),
                r.name,
                score(Some(h))
            );
            svg.diamond((plot.x.at(h), y), 5.5, "human-mark", Some((1, &tip)));
        }
        if let Some(e) = e {
            let tip = format!("{entry}, {}: {}", r.name, score(Some(e)));
            svg.circle((plot.x.at(e), y), 4.5, "record", Some((1, &tip)));
        }
        // What is undefined is said in the row, on the side away from the mark that is there.
        let note = match (e, h, human) {
            (None, None, Some(_)) | (None, _, None) => Some("undefined".to_string()),
            (None, Some(_), Some(_)) => Some(format!("{}: undefined", clip(entry, 16))),
            (Some(_), None, Some(h)) => Some(format!("{h}: undefined")),
            _ => None,
        };
        if let Some(note) = note {
            let mark = e.or(h).map(|v| plot.x.at(v));
            if mark.is_some_and(|x| x < (left + right) / 2.0) {
                svg.text(right, y - 5.0, "end", "undefined", &note);
            } else {
                svg.text(left + 4.0, y - 5.0, "start", "undefined", &note);
            }
        }
    }
    let y = plot_bottom + 26.0 + LINE - 4.0;
    svg.legend(
        y,
        |s, x, y| s.circle((x + 12.0, y), 4.5, "record", None),
        &clip(entry, 48),
    );
    if let Some(h) = human {
        svg.legend(
            y + LINE,
            |s, x, y| s.diamond((x + 12.0, y), 5.5, "human-mark", None),
            h,
        );
    }
    svg.finish()
}

/// One point of a [`scatter`]: a metric's score, a human rating, and a name for its tooltip
/// (an entry's; a caption's is left out).
#[derive(Debug, Clone)]
pub struct Point<'a> {
    pub score: f64,
    pub rating: f64,
    pub name: Option<&'a str>,
}

/// Points in one cell of this grid are drawn as one circle whose area grows with their number:
/// any number of judgments stays at most 1,800 marks (a few hundred for ratings on a scale of a
/// few steps), and piles of equal pairs show.
const CELLS: (f64, f64) = (60.0, 30.0);

/// A metric's score (x) against human ratings (y), one point per pair the agreement table
/// correlates. `what` names the pairs ("(caption, rating) pairs"); `summary` is a sentence the
/// description adds (the correlation); points with a score or rating that is not a number (a
/// caption without a tuple of the kind) are left out and counted.
pub fn scatter(id: &str, metric: &str, what: &str, points: &[Point<'_>], summary: &str) -> Chart {
    let drawn: Vec<&Point<'_>> = points
        .iter()
        .filter(|p| p.score.is_finite() && p.rating.is_finite())
        .collect();
    let left_out = points.len() - drawn.len();
    let title = format!("{metric} against human ratings");
    let range = |f: fn(&Point<'_>) -> f64| {
        drawn
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(f(p)), hi.max(f(p)))
            })
    };
    let (xs, ys) = (range(|p| p.score), range(|p| p.rating));
    let mut desc = if drawn.is_empty() {
        format!("No {what} with a {metric} score.")
    } else {
        format!(
            "{} {what}: {metric} from {} to {} (across), human rating from {} to {} (up).",
            drawn.len(),
            score(Some(xs.0)),
            score(Some(xs.1)),
            rating(ys.0),
            rating(ys.1)
        )
    };
    if !summary.is_empty() {
        let _ = write!(desc, " {summary}");
    }
    if left_out > 0 {
        let _ = write!(desc, " {left_out} left out: no {metric} score.");
    }

    let plot_bottom = TOP + 190.0;
    let height = plot_bottom + 40.0;
    let mut svg = Svg::new(id, height, &title, &desc);
    let ((x0, x1), x_ticks) = if drawn.is_empty() {
        axis(0.0, 1.0, 4)
    } else {
        axis(xs.0, xs.1, 4)
    };
    let ((y0, y1), y_ticks) = if drawn.is_empty() {
        axis(0.0, 1.0, 4)
    } else {
        axis(ys.0, ys.1, 4)
    };
    let plot = Plot::new(
        (LEFT, TOP + 8.0, WIDTH - RIGHT, plot_bottom),
        (x0, x1),
        (y0, y1),
        (8.0, 8.0),
    );
    y_axis(&mut svg, &plot, &y_ticks, false);
    x_axis(&mut svg, &plot, &x_ticks, false);
    svg.text(
        (LEFT + WIDTH - RIGHT) / 2.0,
        plot_bottom + 32.0,
        "middle",
        "axis-title",
        &format!("{metric} (across) · human rating (up)"),
    );
    if drawn.is_empty() {
        svg.empty(&plot, &format!("no {what}"));
    }
    // Cells in grid order, each with the points in it (BTreeMap: the same drawing every time).
    let cell = |p: &Point<'_>| {
        let fx = (p.score - x0) / (x1 - x0);
        let fy = (p.rating - y0) / (y1 - y0);
        (
            (fx * CELLS.0).floor().clamp(0.0, CELLS.0 - 1.0) as usize,
            (fy * CELLS.1).floor().clamp(0.0, CELLS.1 - 1.0) as usize,
        )
    };
    let mut cells: std::collections::BTreeMap<(usize, usize), Vec<&Point<'_>>> =
        std::collections::BTreeMap::new();
    for p in &drawn {
        cells.entry(cell(p)).or_default().push(p);
    }
    for group in cells.values() {
        let n = group.len();
        let mean = |f: fn(&Point<'_>) -> f64| group.iter().map(|p| f(p)).sum::<f64>() / n as f64;
        let at = (plot.x.at(mean(|p| p.score)), plot.y.at(mean(|p| p.rating)));
        let tip = match group.as_slice() {
            [p] => format!(
                "{}{metric} {}, rating {}",
                p.name.map(|n| format!("{n}: ")).unwrap_or_default(),
                score(Some(p.score)),
                rating(p.rating)
            ),
            _ => {
                let (lo, hi) = group
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                        (lo.min(p.score), hi.max(p.score))
                    });
                format!(
                    "{n} pairs: {metric} {} to {}, rating about {}",
                    score(Some(lo)),
                    score(Some(hi)),
                    rating(mean(|p| p.rating))
                )
            }
        };
        let r = (3.0 * (n as f64).sqrt()).min(11.0);
        svg.circle(at, r, "point", Some((n, &tip)));
    }
    svg.finish()
}

/// A rating as people gave it: "4", "3.5", "2.667".
fn rating(v: f64) -> String {
    let text = format!("{v:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

/// Bin widths a histogram of differences may use; the narrowest that needs at most 21 bins.
const BIN_WIDTHS: [f64; 7] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0];

/// The per-image SPICE difference A − B of two entries as a histogram: bins centred on 0 (so
/// "about equal" is one bar), bars right of it where A scored higher (blue), left where B did
/// (vermillion, hatched by its colour's legend). Differences that are not numbers (an image whose
/// SPICE is undefined in A or B) are left out and counted.
pub fn histogram(id: &str, a: &str, b: &str, differences: &[f64]) -> Chart {
    let values: Vec<f64> = differences
        .iter()
        .copied()
        .filter(|d| d.is_finite())
        .collect();
    let left_out = differences.len() - values.len();
    let widest = values.iter().fold(0.0f64, |m, d| m.max(d.abs()));
    // Bin k covers [(k - 1/2) w, (k + 1/2) w): K bins either side of the one around 0.
    let bins_each_side = |w: f64| ((widest / w) - 0.5).ceil().max(0.0) as i64;
    let width = BIN_WIDTHS
        .into_iter()
        .find(|&w| 2 * bins_each_side(w) < 21)
        .unwrap_or(1.0);
    let side = bins_each_side(width).max(2);
    let mut counts = vec![0usize; (2 * side + 1) as usize];
    for &d in &values {
        let k = (d / width + 0.5).floor() as i64;
        counts[(k.clamp(-side, side) + side) as usize] += 1;
    }
    let (higher_a, higher_b) = (
        values.iter().filter(|&&d| d > 0.0).count(),
        values.iter().filter(|&&d| d < 0.0).count(),
    );
    let equal = values.len() - higher_a - higher_b;

    let title = "Per-image SPICE difference, A − B".to_string();
    let mut desc = if values.is_empty() {
        "No image has a SPICE score in both entries.".to_string()
    } else {
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        format!(
            "Histogram of SPICE per image, A ({a}) minus B ({b}), over {}: A higher on {higher_a}, \
             B higher on {higher_b}, equal on {equal}; median difference {}, from {} to {}. \
             Bars are {} wide, the middle one centred on 0.",
            count(n, "image", "images"),
            signed(Some(median)),
            signed(sorted.first().copied()),
            signed(sorted.last().copied()),
            tick_label(width, width, false)
        )
    };
    if left_out > 0 {
        let _ = write!(
            desc,
            " {} without a SPICE score in A or B left out.",
            count(left_out, "image", "images")
        );
    }

    let plot_bottom = TOP + 170.0;
    let height = plot_bottom + 40.0;
    let mut svg = Svg::new(id, height, &title, &desc);
    let edge = (side as f64 + 0.5) * width;
    let most = counts.iter().copied().max().unwrap_or(0).max(1);
    let (_, y_ticks) = axis(0.0, most as f64, 4);
    let y_ticks: Vec<f64> = {
        // Counts are whole: a step under 1 would repeat labels.
        let step = (y_ticks.get(1).copied().unwrap_or(1.0)).max(1.0).round();
        (0..)
            .map(|k| k as f64 * step)
            .take_while(|&t| t < most as f64 + step)
            .collect()
    };
    let top = y_ticks.last().copied().unwrap_or(1.0).max(1.0);
    let plot = Plot::new(
        (LEFT, TOP + 8.0, WIDTH - RIGHT, plot_bottom),
        (-edge, edge),
        (0.0, top),
        (0.0, 0.0),
    );
    y_axis(&mut svg, &plot, &y_ticks, false);
    let x_step = nice_step(2.0 * edge, 4);
    let reach = (edge / x_step).floor() as i64;
    let x_ticks: Vec<f64> = (-reach..=reach).map(|k| k as f64 * x_step).collect();
    x_axis(&mut svg, &plot, &x_ticks, true);
    svg.text(
        LEFT,
        plot_bottom + 32.0,
        "start",
        "axis-title",
        "← B higher",
    );
    svg.text(
        (LEFT + WIDTH - RIGHT) / 2.0,
        plot_bottom + 32.0,
        "middle",
        "axis-title",
        "A − B",
    );
    svg.text(
        WIDTH - RIGHT,
        plot_bottom + 32.0,
        "end",
        "axis-title",
        "A higher →",
    );
    if values.is_empty() {
        svg.empty(&plot, "no image scored by both");
    }
    for (i, &n) in counts.iter().enumerate().filter(|(_, &n)| n > 0) {
        let k = i as i64 - side;
        let (lo, hi) = ((k as f64 - 0.5) * width, (k as f64 + 0.5) * width);
        let (x0, x1) = (plot.x.at(lo), plot.x.at(hi));
        let y = plot.y.at(n as f64);
        let class = match k.signum() {
            1 => "bar a",
            -1 => "bar b",
            _ => "bar same",
        };
        let tip = format!(
            "A − B from {} to {}: {}",
            signed(Some(lo)),
            signed(Some(hi)),
            count(n, "image", "images")
        );
        svg.rect(
            (x0 + 0.5, y),
            (x1 - x0 - 1.0, plot_bottom - y),
            class,
            n,
            &tip,
        );
    }
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The marks of a chart carrying `data-n` (circles, diamonds, bars), with their counts.
    fn marks(chart: &Chart, element: &str) -> Vec<usize> {
        chart
            .as_str()
            .split(&format!("<{element} "))
            .skip(1)
            .filter_map(|m| {
                let n = m.split("data-n=\"").nth(1)?.split('"').next()?;
                n.parse().ok()
            })
            .collect()
    }

    fn desc(chart: &Chart) -> &str {
        let s = chart.as_str();
        let start = s.find("-desc\">").map_or(0, |i| i + 7);
        &s[start..start + s[start..].find("</desc>").unwrap_or(0)]
    }

    fn at(day: u32) -> DateTime<Utc> {
        use chrono::TimeZone;
        Utc.with_ymd_and_hms(2026, 11, day, 12, 0, 0)
            .single()
            .expect("a date")
    }

    /// Every chart is an accessible image: named by its title, described by its desc.
    fn assert_accessible(chart: &Chart, id: &str) {
        let s = chart.as_str();
        assert!(
            s.starts_with(&format!(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"{id}\" role=\"img\" \
                 aria-labelledby=\"{id}-title\" aria-describedby=\"{id}-desc\" viewBox=\"0 0 420 "
            )),
            "{s}"
        );
        assert!(s.contains(&format!("<title id=\"{id}-title\">")), "{s}");
        assert!(!desc(chart).is_empty(), "{s}");
        assert!(s.ends_with("</svg>"));
    }

    #[test]
    fn labels_are_escaped_everywhere() {
        assert_eq!(
            escape("<b> & \"x\" 'y'"),
            "&lt;b&gt; &amp; &quot;x&quot; &#39;y&#39;"
        );
        let name = "<script>alert('x')</script> & \"Co\"";
        let entries = [Dated {
            name,
            at: at(3),
            score: Some(0.2),
        }];
        let levels = [Level {
            kind: "Baseline",
            name,
            score: 0.1,
        }];
        let charts = [
            best_over_time("t", "SPICE", "<val>", &entries, &levels),
            category_profile(
                "p",
                name,
                Some("Human"),
                &[Category {
                    name: "Object",
                    entry: Some(0.3),
                    human: Some(0.4),
                }],
            ),
            scatter(
                "s",
                "SPICE",
                "entries",
                &[Point {
                    score: 0.2,
                    rating: 3.0,
                    name: Some(name),
                }],
                "τ < 1 & \"r\"",
            ),
            histogram("h", name, "B", &[0.1]),
        ];
        for c in &charts {
            let s = c.as_str();
            assert!(!s.contains("<script"), "{s}");
            assert!(!s.contains("'x'") && !s.contains("\"Co\""), "{s}");
        }
        assert!(charts[0]
            .as_str()
            .contains("&lt;script&gt;alert(&#39;x&#39;)"));
        assert!(charts[0].as_str().contains("on &lt;val&gt; over time"));
        assert!(charts[2].as_str().contains("τ &lt; 1 &amp; &quot;r&quot;"));
    }

    #[test]
    fn the_best_entry_over_time_steps_up_at_each_new_best() {
        let entries = [
            Dated {
                name: "Foxes",
                at: at(10),
                score: Some(0.25),
            },
            Dated {
                name: "Owls",
                at: at(2),
                score: Some(0.20),
            },
            Dated {
                name: "Bears",
                at: at(5),
                score: Some(0.18),
            },
            Dated {
                name: "Ants",
                at: at(20),
                score: Some(0.31),
            },
            Dated {
                name: "Yaks",
                at: at(21),
                score: None,
            },
        ];
        let human = [Level {
            kind: "Human",
            name: "Human",
            score: 0.42,
        }];
        let c = best_over_time("best", "SPICE", "val", &entries, &human);
        assert_accessible(&c, "best");
        // Owls, Foxes and Ants each set a new best; Bears did not; Yaks has no score.
        assert_eq!(
            marks(&c, "circle"),
            vec![1; 4],
            "a dot per entry with a score"
        );
        assert_eq!(c.as_str().matches("class=\"record\"").count(), 3 + 1);
        assert!(c
            .as_str()
            .contains("<title>Bears: 0.180, scored 2026-11-05</title>"));
        let d = desc(&c);
        assert!(
            d.starts_with(
                "The best team entry&#39;s SPICE so far, by the day each entry was scored (UTC): \
                 4 entries from 2026-11-02 to 2026-11-20, 3 steps to a new best. The best is \
                 0.310 by Ants, scored 2026-11-20."
            ),
            "{d}"
        );
        assert!(d.contains("Human: 0.420."), "{d}");
        assert!(d.contains("1 entry without a SPICE score left out."), "{d}");
        // The step line: three levels, two rises, on to the last entry.
        let path = c
            .as_str()
            .split("class=\"step\" d=\"")
            .nth(1)
            .expect("a step line");
        let path = &path[..path.find('"').unwrap_or(0)];
        assert_eq!(path.matches('V').count(), 2, "{path}");
        assert_eq!(path.matches('H').count(), 3, "{path}");
        // Dates under the axis, UTC.
        for date in ["2026-11-02", "2026-11-11", "2026-11-20"] {
            assert!(c.as_str().contains(&format!(">{date}</text>")), "{date}");
        }
    }

    #[test]
    fn the_best_over_time_with_no_entry_one_entry_or_equal_scores() {
        let none = best_over_time("b", "SPICE", "val", &[], &[]);
        assert_accessible(&none, "b");
        assert_eq!(desc(&none), "No team entry has a SPICE score yet.");
        assert!(none.as_str().contains(">no team entry yet</text>"));
        assert!(!none.as_str().contains("NaN") && !none.as_str().contains("inf"));

        let one = [Dated {
            name: "Owls",
            at: at(3),
            score: Some(0.2),
        }];
        let c = best_over_time("b", "SPICE", "val", &one, &[]);
        assert!(
            desc(&c).contains("1 entry from 2026-11-03 to 2026-11-03, 1 step"),
            "{}",
            desc(&c)
        );
        assert!(!c.as_str().contains("NaN"), "{}", c.as_str());
        assert_eq!(c.as_str().matches(">2026-11-03</text>").count(), 1);

        // Equal scores: the first to reach it holds the best; the axis still has a height.
        let same = [
            Dated {
                name: "A",
                at: at(3),
                score: Some(0.2),
            },
            Dated {
                name: "B",
                at: at(4),
                score: Some(0.2),
            },
        ];
        let c = best_over_time("b", "SPICE", "val", &same, &[]);
        assert!(desc(&c).contains("The best is 0.200 by A"), "{}", desc(&c));
        assert!(!c.as_str().contains("NaN"), "{}", c.as_str());
        assert!(c.as_str().contains(">0.200</text>"), "{}", c.as_str());

        // Only NaN: nothing drawn, and said.
        let nan = [Dated {
            name: "A",
            at: at(3),
            score: Some(f64::NAN),
        }];
        let c = best_over_time("b", "SPICE", "val", &nan, &[]);
        assert!(desc(&c).contains("1 entry without a SPICE score left out."));
        assert!(marks(&c, "circle").is_empty());
    }

    #[test]
    fn a_profile_says_undefined_instead_of_drawing_zero() {
        let rows = [
            Category {
                name: "SPICE",
                entry: Some(0.21),
                human: Some(0.40),
            },
            Category {
                name: "Count",
                entry: None,
                human: None,
            },
            Category {
                name: "Color",
                entry: Some(0.0),
                human: None,
            },
            Category {
                name: "Size",
                entry: Some(f64::NAN),
                human: Some(0.1),
            },
        ];
        let c = category_profile("profile", "Owls", Some("Human"), &rows);
        assert_accessible(&c, "profile");
        // Entry marks: SPICE and Color (a real 0); Human marks: SPICE and Size.
        assert_eq!(
            c.as_str().matches("<circle class=\"record\"").count(),
            2 + 1
        );
        assert_eq!(
            c.as_str().matches("<path class=\"human-mark\"").count(),
            2 + 1
        );
        assert!(c.as_str().contains(">undefined</text>"));
        assert!(c.as_str().contains(">Owls: undefined</text>"));
        assert!(c.as_str().contains(">Human: undefined</text>"));
        let d = desc(&c);
        assert!(
            d.contains(
                "SPICE 0.210 (Human 0.400); Count undefined (Human undefined); \
                        Color 0.000 (Human undefined); Size undefined (Human 0.100)."
            ),
            "{d}"
        );
        assert!(d.contains("(not 0)"), "{d}");

        let alone = category_profile("p", "Human", None, &rows[..2]);
        assert_eq!(
            desc(&alone),
            "Human&#39;s F-score in each SPICE category: SPICE 0.210; Count undefined. \
             Undefined: the references have no tuple of that kind, so there is no score (not 0)."
        );
        assert!(!alone.as_str().contains("human-mark"));
        let empty = category_profile("p", "Owls", Some("Human"), &[]);
        assert_eq!(desc(&empty), "Owls has no scores yet.");
    }

    #[test]
    fn a_scatter_draws_every_pair_merging_only_coincident_ones() {
        let mut points: Vec<Point<'_>> = (0..10)
            .map(|i| Point {
                score: i as f64 / 10.0,
                rating: (i % 5) as f64,
                name: None,
            })
            .collect();
        // Three identical pairs: one mark standing for three.
        points.extend((0..3).map(|_| Point {
            score: 0.55,
            rating: 2.0,
            name: None,
        }));
        points.push(Point {
            score: f64::NAN,
            rating: 1.0,
            name: None,
        });
        let c = scatter(
            "sc",
            "SPICE",
            "(caption, rating) pairs",
            &points,
            "Kendall τ-c 0.5.",
        );
        assert_accessible(&c, "sc");
        let n = marks(&c, "circle");
        assert_eq!(
            n.iter().sum::<usize>(),
            13,
            "every pair with a score: {n:?}"
        );
        assert_eq!(n.len(), 11);
        assert!(n.contains(&3));
        let d = desc(&c);
        assert!(
            d.starts_with("13 (caption, rating) pairs: SPICE from 0.000 to 0.900 (across), human rating from 0 to 4 (up). Kendall τ-c 0.5."),
            "{d}"
        );
        assert!(d.ends_with("1 left out: no SPICE score."), "{d}");

        let one = scatter(
            "sc",
            "SPICE",
            "judged entries",
            &[Point {
                score: 0.3,
                rating: 4.0,
                name: Some("Owls"),
            }],
            "",
        );
        assert_eq!(marks(&one, "circle"), vec![1]);
        assert!(one
            .as_str()
            .contains("<title>Owls: SPICE 0.300, rating 4</title>"));
        assert!(!one.as_str().contains("NaN"));
        let none = scatter("sc", "SPICE", "judged entries", &[], "");
        assert_eq!(desc(&none), "No judged entries with a SPICE score.");
        assert!(marks(&none, "circle").is_empty());
    }

    #[test]
    fn a_histogram_of_differences_counts_every_image_once() {
        let d = [0.3, 0.25, -0.1, 0.0, 0.0, 0.01, f64::NAN];
        let c = histogram("hist", "Owls", "Foxes", &d);
        assert_accessible(&c, "hist");
        let n = marks(&c, "rect");
        assert_eq!(n.iter().sum::<usize>(), 6, "{n:?}");
        let text = desc(&c);
        assert!(
            text.starts_with("Histogram of SPICE per image, A (Owls) minus B (Foxes), over 6 images: A higher on 3, B higher on 1, equal on 2; median difference +0.005, from \u{2212}0.100 to +0.300."),
            "{text}"
        );
        assert!(text.contains("Bars are 0.05 wide"), "{text}");
        assert!(
            text.ends_with("1 image without a SPICE score in A or B left out."),
            "{text}"
        );
        // 0, 0 and 0.01 share the middle bar; 0.25 and 0.3 are the two right of it.
        assert!(n.contains(&3), "{n:?}");
        assert_eq!(c.as_str().matches("class=\"bar same\"").count(), 1);
        assert_eq!(c.as_str().matches("class=\"bar b\"").count(), 1);
        assert!(c.as_str().contains(">+0.2</text>") && c.as_str().contains(">\u{2212}0.2</text>"));

        let equal = histogram("h", "A", "B", &[0.0, 0.0]);
        assert_eq!(marks(&equal, "rect"), vec![2]);
        assert!(desc(&equal).contains("equal on 2"));
        let empty = histogram("h", "A", "B", &[]);
        assert_eq!(desc(&empty), "No image has a SPICE score in both entries.");
        assert!(marks(&empty, "rect").is_empty());
        let one = histogram("h", "A", "B", &[-1.0]);
        assert_eq!(marks(&one, "rect"), vec![1]);
        assert!(!one.as_str().contains("NaN"));
    }

    #[test]
    fn ticks_are_round_and_equal_values_get_a_height() {
        assert_eq!(
            axis(0.0, 1.0, 4),
            ((0.0, 1.0), vec![0.0, 0.25, 0.5, 0.75, 1.0])
        );
        let ((lo, hi), ticks) = axis(0.3, 0.3, 4);
        assert!(
            lo < 0.3 && hi > 0.3 && ticks.len() >= 2,
            "{lo} {hi} {ticks:?}"
        );
        // Every score 0: an axis from 0 up, not into negative scores.
        let ((lo, hi), ticks) = axis(0.0, 0.0, 4);
        assert!(
            lo == 0.0 && hi > 0.0 && ticks[0] == 0.0,
            "{lo} {hi} {ticks:?}"
        );
        assert_eq!(tick_label(0.2, 0.1, true), "+0.2");
        assert_eq!(tick_label(-0.2, 0.1, true), "\u{2212}0.2");
        assert_eq!(tick_label(1e-17, 0.1, true), "0.0");
        assert_eq!(tick_label(0.25, 0.05, false), "0.25");
        assert_eq!(rating(4.0), "4");
        assert_eq!(rating(3.5), "3.5");
        assert_eq!(clip("Université de Montréal", 10), "Universit…");
    }
}
