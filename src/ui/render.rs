//! Pure Cairo drawing of the board: wood, grid, star points, coordinates, stones, markers. Nothing
//! here touches GTK, so the tests draw on a `cairo::ImageSurface` and check pixels.
//!
//! [`Layout`] maps between widget coordinates and board points (it keeps the board square and
//! centred in any allocation); [`Scene`] is everything that is drawn.

use crate::rules::{Color, ForbiddenKind, Pos, SIZE};
use gtk4::cairo;
use std::f64::consts::PI;

/// Margin around the grid, in cells (room for the coordinates).
const MARGIN_CELLS: f64 = 1.15;
/// Star points: the centre and the four 3-3 points (as on a printed renju board).
const STAR_POINTS: [(u8, u8); 5] = [(3, 3), (11, 3), (7, 7), (3, 11), (11, 11)];

/// Where the board sits inside the drawing area.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    /// Top-left corner of the wooden board.
    pub left: f64,
    pub top: f64,
    /// Side of the wooden board.
    pub side: f64,
    /// Distance between two grid lines.
    pub cell: f64,
}

impl Layout {
    /// The largest square board that fits `width` x `height`, centred.
    pub fn new(width: f64, height: f64) -> Layout {
        let side = (width.min(height) - 8.0).max(60.0);
        let cell = side / (f64::from(SIZE - 1) + 2.0 * MARGIN_CELLS);
        Layout {
            left: ((width - side) / 2.0).floor(),
            top: ((height - side) / 2.0).floor(),
            side,
            cell,
        }
    }

    /// Centre of the point `p`, in drawing coordinates.
    pub fn center(&self, p: Pos) -> (f64, f64) {
        let margin = self.cell * MARGIN_CELLS;
        (
            self.left + margin + f64::from(p.x()) * self.cell,
            self.top + margin + f64::from(p.y()) * self.cell,
        )
    }

    /// The point nearest to `(x, y)`, if it is within half a cell of it.
    pub fn pos_at(&self, x: f64, y: f64) -> Option<Pos> {
        let margin = self.cell * MARGIN_CELLS;
        let fx = (x - self.left - margin) / self.cell;
        let fy = (y - self.top - margin) / self.cell;
        let (rx, ry) = (fx.round(), fy.round());
        let max = f64::from(SIZE - 1);
        if !(0.0..=max).contains(&rx) || !(0.0..=max).contains(&ry) {
            return None;
        }
        if (fx - rx).abs() > 0.5 || (fy - ry).abs() > 0.5 {
            return None;
        }
        Pos::new(rx as u8, ry as u8)
    }

    /// Radius of a stone.
    pub fn stone_radius(&self) -> f64 {
        self.cell * 0.46
    }
}

/// A suggested move and the engine's expected continuation.
#[derive(Clone, Debug, PartialEq)]
pub struct HintMark {
    pub pos: Pos,
    /// The continuation after `pos` (the engine's principal variation without its first move).
    pub line: Vec<Pos>,
    /// Colour of the side the hint is for.
    pub color: Color,
}

/// Everything the board shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scene {
    /// Stones with their move numbers (1-based), in play order.
    pub stones: Vec<(Pos, Color, usize)>,
    pub last_move: Option<Pos>,
    pub show_numbers: bool,
    /// A translucent stone under the pointer.
    pub ghost: Option<(Pos, Color)>,
    pub winning_line: Vec<Pos>,
    pub hint: Option<HintMark>,
    pub forbidden: Vec<(Pos, ForbiddenKind)>,
}

/// The colours of the board (fixed: a board is wooden in light and dark mode alike).
mod palette {
    pub const WOOD_LIGHT: (f64, f64, f64) = (0.91, 0.74, 0.47);
    pub const WOOD_DARK: (f64, f64, f64) = (0.83, 0.63, 0.36);
    pub const GRAIN: (f64, f64, f64, f64) = (0.55, 0.36, 0.15, 0.10);
    pub const INK: (f64, f64, f64) = (0.23, 0.15, 0.07);
    pub const MARK_RED: (f64, f64, f64) = (0.88, 0.11, 0.14);
    pub const WIN: (f64, f64, f64) = (0.95, 0.22, 0.12);
    pub const HINT: (f64, f64, f64) = (0.10, 0.45, 0.91);
    pub const FORBIDDEN: (f64, f64, f64) = (0.80, 0.05, 0.10);
}

/// Draws the whole scene.
pub fn draw(cr: &cairo::Context, layout: &Layout, scene: &Scene) -> Result<(), cairo::Error> {
    draw_background(cr, layout)?;
    draw_foreground(cr, layout, scene, None)
}

/// Draws what stays the same at one size: the wooden board, its grid, star points and coordinates.
pub fn draw_background(cr: &cairo::Context, layout: &Layout) -> Result<(), cairo::Error> {
    draw_wood(cr, layout)?;
    draw_grid(cr, layout)?;
    draw_coordinates(cr, layout)
}

/// What is drawn once per size and scale, then only copied: the background (the wood grain and
/// shadow) and a picture of each stone (its gradients). Drawing them anew for every frame cost
/// 16 ms for the background and 0.2 ms a stone on a 2 GHz machine.
#[derive(Default)]
pub struct BoardCache {
    images: Option<CachedImages>,
}

struct CachedImages {
    /// Width, height and scale they were drawn for.
    key: (i32, i32, i32),
    background: cairo::ImageSurface,
    stones: StoneSprites,
}

/// A black and a white stone with their shadows, drawn around the middle of small images.
struct StoneSprites {
    /// Indexed by [`Color::index`].
    images: [cairo::ImageSurface; 2],
    /// Distance from an image's corner to the stone's centre.
    half: f64,
}

/// An image of `width` x `height` logical pixels at integer `scale`, drawn by `draw`.
fn image(
    width: f64,
    height: f64,
    scale: i32,
    draw: impl FnOnce(&cairo::Context) -> Result<(), cairo::Error>,
) -> Result<cairo::ImageSurface, cairo::Error> {
    let device = |logical: f64| (logical * f64::from(scale)).ceil() as i32;
    let image = cairo::ImageSurface::create(cairo::Format::ARgb32, device(width), device(height))?;
    image.set_device_scale(f64::from(scale), f64::from(scale));
    draw(&cairo::Context::new(&image)?)?;
    image.flush();
    Ok(image)
}

impl StoneSprites {
    fn new(layout: &Layout, scale: i32) -> Result<StoneSprites, cairo::Error> {
        let radius = layout.stone_radius();
        // Room for the shadow's offset and the outline.
        let half = (radius * 1.3).ceil() + 1.0;
        let sprite = |color| {
            image(2.0 * half, 2.0 * half, scale, |cr| {
                draw_stone_at(cr, half, half, radius, color, 1.0)
            })
        };
        Ok(StoneSprites {
            images: [sprite(Color::Black)?, sprite(Color::White)?],
            half,
        })
    }

    fn paint(
        &self,
        cr: &cairo::Context,
        layout: &Layout,
        p: Pos,
        color: Color,
    ) -> Result<(), cairo::Error> {
        let (cx, cy) = layout.center(p);
        cr.set_source_surface(&self.images[color.index()], cx - self.half, cy - self.half)?;
        cr.paint()
    }
}

impl BoardCache {
    /// Draws `scene` on a `width` x `height` area drawn at integer `scale` (HiDPI), from the
    /// cached images when they were made for this size.
    pub fn draw(
        &mut self,
        cr: &cairo::Context,
        width: i32,
        height: i32,
        scale: i32,
        scene: &Scene,
    ) -> Result<(), cairo::Error> {
        let key = (width, height, scale.max(1));
        let layout = Layout::new(f64::from(width), f64::from(height));
        let images = match &mut self.images {
            Some(images) if images.key == key => images,
            slot => slot.insert(CachedImages {
                key,
                background: image(f64::from(width), f64::from(height), key.2, |cr| {
                    draw_background(cr, &layout)
                })?,
                stones: StoneSprites::new(&layout, key.2)?,
            }),
        };
        cr.set_source_surface(&images.background, 0.0, 0.0)?;
        cr.paint()?;
        draw_foreground(cr, &layout, scene, Some(&images.stones))
    }
}

/// Draws what changes from move to move, over the background; stones come from `sprites` if
/// given.
fn draw_foreground(
    cr: &cairo::Context,
    layout: &Layout,
    scene: &Scene,
    sprites: Option<&StoneSprites>,
) -> Result<(), cairo::Error> {
    draw_forbidden(cr, layout, &scene.forbidden)?;
    if let Some(hint) = &scene.hint {
        draw_hint(cr, layout, hint)?;
    }
    // Under the stones, so that it never hides their numbers.
    draw_winning_stroke(cr, layout, &scene.winning_line)?;
    for &(p, color, number) in &scene.stones {
        match sprites {
            Some(sprites) => sprites.paint(cr, layout, p, color)?,
            None => draw_stone(cr, layout, p, color, 1.0)?,
        }
        if scene.show_numbers {
            draw_number(cr, layout, p, color, number, Some(p) == scene.last_move)?;
        }
    }
    if let Some((p, color)) = scene.ghost {
        draw_stone(cr, layout, p, color, 0.45)?;
    }
    if !scene.show_numbers {
        if let Some(p) = scene.last_move {
            let color = scene
                .stones
                .iter()
                .find(|(q, _, _)| *q == p)
                .map(|&(_, c, _)| c);
            draw_last_move(cr, layout, p, color)?;
        }
    }
    draw_winning_rings(cr, layout, &scene.winning_line)?;
    Ok(())
}

fn set_rgb(cr: &cairo::Context, (r, g, b): (f64, f64, f64)) {
    cr.set_source_rgb(r, g, b);
}

fn rounded_rect(cr: &cairo::Context, x: f64, y: f64, w: f64, h: f64, r: f64) {
    cr.new_sub_path();
    cr.arc(x + w - r, y + r, r, -PI / 2.0, 0.0);
    cr.arc(x + w - r, y + h - r, r, 0.0, PI / 2.0);
    cr.arc(x + r, y + h - r, r, PI / 2.0, PI);
    cr.arc(x + r, y + r, r, PI, 1.5 * PI);
    cr.close_path();
}

fn draw_wood(cr: &cairo::Context, l: &Layout) -> Result<(), cairo::Error> {
    let radius = l.cell * 0.25;
    // Soft shadow under the board.
    cr.save()?;
    for (offset, alpha) in [(4.0, 0.06), (2.5, 0.08), (1.2, 0.12)] {
        rounded_rect(cr, l.left, l.top + offset, l.side, l.side, radius);
        cr.set_source_rgba(0.0, 0.0, 0.0, alpha);
        cr.fill()?;
    }
    cr.restore()?;

    let gradient = cairo::LinearGradient::new(l.left, l.top, l.left + l.side, l.top + l.side);
    let (r, g, b) = palette::WOOD_LIGHT;
    gradient.add_color_stop_rgb(0.0, r, g, b);
    let (r, g, b) = palette::WOOD_DARK;
    gradient.add_color_stop_rgb(1.0, r, g, b);
    rounded_rect(cr, l.left, l.top, l.side, l.side, radius);
    cr.set_source(&gradient)?;
    cr.fill_preserve()?;

    // Grain: gently waving lines, deterministic so that every redraw looks the same.
    cr.save()?;
    cr.clip();
    let (r, g, b, a) = palette::GRAIN;
    cr.set_source_rgba(r, g, b, a);
    let mut seed: u32 = 0x2545_F491;
    let lines = 38;
    for i in 0..lines {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let jitter = f64::from(seed >> 24) / 255.0;
        let y0 = l.top + l.side * (f64::from(i) + jitter) / f64::from(lines);
        let amplitude = l.cell * (0.15 + 0.35 * jitter);
        cr.set_line_width((l.cell * 0.04 * (0.5 + jitter)).max(0.5));
        cr.move_to(l.left, y0);
        let steps = 12;
        for s in 1..=steps {
            let t = f64::from(s) / f64::from(steps);
            let x = l.left + l.side * t;
            let y = y0 + amplitude * (t * PI * (1.5 + jitter) + jitter * 6.0).sin();
            cr.line_to(x, y);
        }
        cr.stroke()?;
    }
    cr.restore()?;
    Ok(())
}

fn draw_grid(cr: &cairo::Context, l: &Layout) -> Result<(), cairo::Error> {
    set_rgb(cr, palette::INK);
    let width = (l.cell / 36.0).clamp(1.0, 2.0);
    // Align 1-pixel lines on pixel centres so that they stay crisp.
    let snap = |v: f64| {
        if (width - 1.0).abs() < f64::EPSILON {
            v.floor() + 0.5
        } else {
            v.round()
        }
    };
    cr.set_line_width(width);
    let last = SIZE - 1;
    for i in 0..SIZE {
        let (x0, y0) = l.center(Pos(i));
        let (_, y1) = l.center(Pos(i | (last << 4)));
        cr.move_to(snap(x0), snap(y0));
        cr.line_to(snap(x0), snap(y1));
        let (x0, y0) = l.center(Pos(i << 4));
        let (x1, _) = l.center(Pos(last | (i << 4)));
        cr.move_to(snap(x0), snap(y0));
        cr.line_to(snap(x1), snap(y0));
    }
    cr.stroke()?;
    // A heavier frame around the playing area.
    let (x0, y0) = l.center(Pos(0));
    let (x1, y1) = l.center(Pos(last | (last << 4)));
    cr.set_line_width(width * 2.0);
    cr.rectangle(snap(x0), snap(y0), snap(x1) - snap(x0), snap(y1) - snap(y0));
    cr.stroke()?;
    for (x, y) in STAR_POINTS {
        if let Some(p) = Pos::new(x, y) {
            let (cx, cy) = l.center(p);
            cr.arc(cx, cy, (l.cell * 0.1).max(2.0), 0.0, 2.0 * PI);
            cr.fill()?;
        }
    }
    Ok(())
}

fn draw_coordinates(cr: &cairo::Context, l: &Layout) -> Result<(), cairo::Error> {
    set_rgb(cr, palette::INK);
    cr.select_font_face("Sans", cairo::FontSlant::Normal, cairo::FontWeight::Bold);
    cr.set_font_size((l.cell * 0.36).max(7.0));
    let edge = l.cell * MARGIN_CELLS * 0.5;
    for i in 0..SIZE {
        let letter = ((b'a' + i) as char).to_string();
        let (x, _) = l.center(Pos(i));
        centered_text(cr, &letter, x, l.top + l.side - edge)?;
        centered_text(cr, &letter, x, l.top + edge)?;
        let number = (SIZE - i).to_string();
        let (_, y) = l.center(Pos(i << 4));
        centered_text(cr, &number, l.left + edge, y)?;
        centered_text(cr, &number, l.left + l.side - edge, y)?;
    }
    Ok(())
}

fn centered_text(cr: &cairo::Context, text: &str, x: f64, y: f64) -> Result<(), cairo::Error> {
    let extents = cr.text_extents(text)?;
    cr.move_to(
        x - extents.width() / 2.0 - extents.x_bearing(),
        y - extents.height() / 2.0 - extents.y_bearing(),
    );
    cr.show_text(text)?;
    // show_text leaves a current point: a following arc would draw a line from it.
    cr.new_path();
    Ok(())
}

/// Draws one stone; `alpha` below 1 draws a ghost.
pub fn draw_stone(
    cr: &cairo::Context,
    l: &Layout,
    p: Pos,
    color: Color,
    alpha: f64,
) -> Result<(), cairo::Error> {
    let (cx, cy) = l.center(p);
    draw_stone_at(cr, cx, cy, l.stone_radius(), color, alpha)
}

/// Draws a stone of radius `r` centred on (`cx`, `cy`); an opaque one gets a shadow.
fn draw_stone_at(
    cr: &cairo::Context,
    cx: f64,
    cy: f64,
    r: f64,
    color: Color,
    alpha: f64,
) -> Result<(), cairo::Error> {
    cr.new_path();
    if alpha >= 1.0 {
        cr.arc(cx + r * 0.08, cy + r * 0.12, r, 0.0, 2.0 * PI);
        cr.set_source_rgba(0.0, 0.0, 0.0, 0.28);
        cr.fill()?;
    }
    let gradient = cairo::RadialGradient::new(
        cx - r * 0.35,
        cy - r * 0.4,
        r * 0.05,
        cx - r * 0.1,
        cy - r * 0.1,
        r * 1.15,
    );
    match color {
        Color::Black => {
            gradient.add_color_stop_rgba(0.0, 0.42, 0.42, 0.44, alpha);
            gradient.add_color_stop_rgba(0.45, 0.13, 0.13, 0.14, alpha);
            gradient.add_color_stop_rgba(1.0, 0.02, 0.02, 0.02, alpha);
        }
        Color::White => {
            gradient.add_color_stop_rgba(0.0, 1.0, 1.0, 1.0, alpha);
            gradient.add_color_stop_rgba(0.6, 0.93, 0.93, 0.91, alpha);
            gradient.add_color_stop_rgba(1.0, 0.72, 0.72, 0.70, alpha);
        }
    }
    cr.arc(cx, cy, r, 0.0, 2.0 * PI);
    cr.set_source(&gradient)?;
    cr.fill_preserve()?;
    cr.set_line_width((r * 0.05).max(0.6));
    cr.set_source_rgba(0.0, 0.0, 0.0, 0.35 * alpha);
    cr.stroke()?;
    Ok(())
}

fn draw_number(
    cr: &cairo::Context,
    l: &Layout,
    p: Pos,
    color: Color,
    number: usize,
    last: bool,
) -> Result<(), cairo::Error> {
    let (cx, cy) = l.center(p);
    if last {
        set_rgb(cr, palette::MARK_RED);
    } else if color == Color::Black {
        cr.set_source_rgb(0.95, 0.95, 0.95);
    } else {
        cr.set_source_rgb(0.1, 0.1, 0.1);
    }
    cr.select_font_face("Sans", cairo::FontSlant::Normal, cairo::FontWeight::Bold);
    let digits = number.to_string();
    let scale = if digits.len() > 2 { 0.34 } else { 0.42 };
    cr.set_font_size(l.cell * scale);
    centered_text(cr, &digits, cx, cy)
}

fn draw_last_move(
    cr: &cairo::Context,
    l: &Layout,
    p: Pos,
    color: Option<Color>,
) -> Result<(), cairo::Error> {
    let (cx, cy) = l.center(p);
    let r = l.stone_radius() * 0.3;
    cr.arc(cx, cy, r, 0.0, 2.0 * PI);
    set_rgb(cr, palette::MARK_RED);
    cr.fill_preserve()?;
    if color == Some(Color::White) {
        cr.set_source_rgba(1.0, 1.0, 1.0, 0.6);
    } else {
        cr.set_source_rgba(0.0, 0.0, 0.0, 0.3);
    }
    cr.set_line_width(1.0);
    cr.stroke()?;
    Ok(())
}

/// The winning five's line, drawn from end to end before its stones.
fn draw_winning_stroke(cr: &cairo::Context, l: &Layout, line: &[Pos]) -> Result<(), cairo::Error> {
    let (Some(&first), Some(&last)) = (line.first(), line.last()) else {
        return Ok(());
    };
    let (r, g, b) = palette::WIN;
    let (x0, y0) = l.center(first);
    let (x1, y1) = l.center(last);
    cr.set_line_cap(cairo::LineCap::Round);
    cr.set_line_width(l.cell * 0.16);
    cr.set_source_rgba(r, g, b, 0.85);
    cr.move_to(x0, y0);
    cr.line_to(x1, y1);
    cr.stroke()?;
    cr.set_line_cap(cairo::LineCap::Butt);
    Ok(())
}

/// A ring around each stone of the winning five.
fn draw_winning_rings(cr: &cairo::Context, l: &Layout, line: &[Pos]) -> Result<(), cairo::Error> {
    let (r, g, b) = palette::WIN;
    cr.set_source_rgba(r, g, b, 0.85);
    cr.set_line_width((l.cell * 0.07).max(1.5));
    for &p in line {
        let (cx, cy) = l.center(p);
        cr.new_sub_path();
        cr.arc(cx, cy, l.stone_radius() + l.cell * 0.02, 0.0, 2.0 * PI);
        cr.stroke()?;
    }
    Ok(())
}

fn draw_hint(cr: &cairo::Context, l: &Layout, hint: &HintMark) -> Result<(), cairo::Error> {
    let (r, g, b) = palette::HINT;
    // The continuation: small numbered translucent stones, alternating colours.
    let mut color = hint.color.opponent();
    for (i, &p) in hint.line.iter().enumerate().take(6) {
        let (cx, cy) = l.center(p);
        let radius = l.stone_radius() * 0.55;
        cr.arc(cx, cy, radius, 0.0, 2.0 * PI);
        // Light digits on Black's stones, dark blue ones on White's: readable on both.
        let (fill, digits) = match color {
            Color::Black => ((0.05, 0.05, 0.05), (1.0, 1.0, 1.0)),
            Color::White => ((1.0, 1.0, 1.0), (r * 0.6, g * 0.6, b * 0.6)),
        };
        cr.set_source_rgba(fill.0, fill.1, fill.2, 0.6);
        cr.fill_preserve()?;
        cr.set_source_rgba(r, g, b, 0.8);
        cr.set_line_width(1.2);
        cr.stroke()?;
        set_rgb(cr, digits);
        cr.select_font_face("Sans", cairo::FontSlant::Normal, cairo::FontWeight::Bold);
        cr.set_font_size(l.cell * 0.3);
        centered_text(cr, &(i + 2).to_string(), cx, cy)?;
        color = color.opponent();
    }
    // The suggested point: a ghost of the stone in a thick blue ring.
    draw_stone(cr, l, hint.pos, hint.color, 0.5)?;
    let (cx, cy) = l.center(hint.pos);
    cr.arc(cx, cy, l.stone_radius() * 1.05, 0.0, 2.0 * PI);
    cr.set_source_rgb(r, g, b);
    cr.set_line_width((l.cell * 0.09).max(2.0));
    cr.stroke()?;
    Ok(())
}

fn draw_forbidden(
    cr: &cairo::Context,
    l: &Layout,
    points: &[(Pos, ForbiddenKind)],
) -> Result<(), cairo::Error> {
    let (r, g, b) = palette::FORBIDDEN;
    cr.set_line_cap(cairo::LineCap::Round);
    cr.set_line_width((l.cell * 0.08).max(1.5));
    for &(p, _) in points {
        let (cx, cy) = l.center(p);
        let d = l.cell * 0.2;
        cr.set_source_rgba(r, g, b, 0.9);
        cr.move_to(cx - d, cy - d);
        cr.line_to(cx + d, cy + d);
        cr.move_to(cx + d, cy - d);
        cr.line_to(cx - d, cy + d);
        cr.stroke()?;
    }
    cr.set_line_cap(cairo::LineCap::Butt);
    Ok(())
}

/// Draws the evaluation over the game: one point per position (`evals[n]` after `n` moves, in
/// -1..1, positive good for Black), the area above the middle black, below white; `current`
/// marks the position on the board.
pub fn draw_eval_graph(
    cr: &cairo::Context,
    width: f64,
    height: f64,
    evals: &[Option<f64>],
    current: usize,
) -> Result<(), cairo::Error> {
    rounded_rect(cr, 0.0, 0.0, width, height, 6.0);
    cr.set_source_rgb(0.93, 0.93, 0.92);
    cr.fill_preserve()?;
    cr.clip();
    let mid = height / 2.0;
    // One slot per position, at least 30 so that the first moves do not fill the width.
    let slots = evals.len().max(30);
    let step = width / slots as f64;
    let bar = (step * 0.8).max(1.0);
    for (i, value) in evals.iter().enumerate() {
        let Some(value) = value else {
            continue;
        };
        let x = (i as f64 + 0.5) * step - bar / 2.0;
        let top = mid - value.clamp(-1.0, 1.0) * (mid - 3.0);
        // Black's advantage rises in black, White's hangs down in white.
        cr.rectangle(x, top.min(mid), bar, (top - mid).abs().max(1.0));
        if *value >= 0.0 {
            cr.set_source_rgb(0.12, 0.12, 0.14);
            cr.fill()?;
        } else {
            cr.set_source_rgb(1.0, 1.0, 1.0);
            cr.fill_preserve()?;
            cr.set_source_rgba(0.0, 0.0, 0.0, 0.45);
            cr.set_line_width(1.0);
            cr.stroke()?;
        }
    }
    cr.set_source_rgba(0.0, 0.0, 0.0, 0.25);
    cr.set_line_width(1.0);
    cr.move_to(0.0, mid.floor() + 0.5);
    cr.line_to(width, mid.floor() + 0.5);
    cr.stroke()?;
    let x = ((current as f64 + 0.5) * step).clamp(1.0, width - 1.0);
    cr.set_source_rgba(0.88, 0.11, 0.14, 0.8);
    cr.move_to(x.floor() + 0.5, 0.0);
    cr.line_to(x.floor() + 0.5, height);
    cr.stroke()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_round_trips_every_point() {
        for (w, h) in [(600.0, 600.0), (900.0, 500.0), (300.0, 820.0)] {
            let layout = Layout::new(w, h);
            for p in Pos::all() {
                let (x, y) = layout.center(p);
                assert_eq!(layout.pos_at(x, y), Some(p));
                assert_eq!(
                    layout.pos_at(x + layout.cell * 0.4, y - layout.cell * 0.4),
                    Some(p)
                );
            }
            assert_eq!(layout.pos_at(layout.left + 1.0, layout.top + 1.0), None);
            assert!(layout.side <= w.min(h));
        }
    }
}
