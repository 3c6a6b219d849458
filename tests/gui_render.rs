//! The board drawn to a `cairo::ImageSurface` for known scenes: pixels at stones and markers have
//! the expected colours (no display needed).
#![cfg(feature = "gui")]

use gobang::rules::{Color, ForbiddenKind, Pos};
use gobang::ui::render::{self, BoardCache, HintMark, Layout, Scene};
use gtk4::cairo;

struct Picture {
    width: i32,
    stride: usize,
    data: Vec<u8>,
}

impl Picture {
    /// (red, green, blue) at a point.
    fn rgb(&self, x: f64, y: f64) -> (u8, u8, u8) {
        let (x, y) = (x.round() as usize, y.round() as usize);
        assert!(x < self.width as usize);
        let i = y * self.stride + x * 4;
        // ARGB32 is stored native-endian: B, G, R, A on little-endian machines.
        (self.data[i + 2], self.data[i + 1], self.data[i])
    }
}

fn paint(width: i32, height: i32, draw: impl FnOnce(&cairo::Context)) -> Picture {
    let mut surface =
        cairo::ImageSurface::create(cairo::Format::ARgb32, width, height).expect("surface");
    {
        let cr = cairo::Context::new(&surface).expect("context");
        cr.set_source_rgb(1.0, 1.0, 1.0);
        cr.paint().expect("paint");
        draw(&cr);
    }
    surface.flush();
    let stride = surface.stride() as usize;
    let data = surface.data().expect("surface data").to_vec();
    Picture {
        width,
        stride,
        data,
    }
}

fn draw_scene(width: i32, height: i32, scene: &Scene) -> (Picture, Layout) {
    let layout = Layout::new(f64::from(width), f64::from(height));
    let picture = paint(width, height, |cr| {
        render::draw(cr, &layout, scene).expect("draw");
    });
    (picture, layout)
}

fn p(text: &str) -> Pos {
    text.parse().expect("test coordinate")
}

fn is_dark((r, g, b): (u8, u8, u8)) -> bool {
    r < 90 && g < 90 && b < 90
}

fn is_light((r, g, b): (u8, u8, u8)) -> bool {
    r > 190 && g > 190 && b > 185
}

fn is_wood((r, g, b): (u8, u8, u8)) -> bool {
    r > 170 && r > g && g > b && b < 160
}

fn is_red((r, g, b): (u8, u8, u8)) -> bool {
    r > 170 && g < 110 && b < 110
}

fn is_blue((r, g, b): (u8, u8, u8)) -> bool {
    b > 170 && r < 120 && b > g
}

/// A point a little off the centre (away from the grid lines and any central marker).
fn off_center(layout: &Layout, pos: Pos) -> (f64, f64) {
    let (x, y) = layout.center(pos);
    let d = layout.stone_radius() * 0.55;
    (x + d, y + d * 0.3)
}

#[test]
fn empty_board_is_wood_with_dark_grid() {
    let (picture, layout) = draw_scene(600, 600, &Scene::default());
    let (x, y) = layout.center(p("h8"));
    let half = layout.cell / 2.0;
    assert!(is_wood(picture.rgb(x + half, y + half)));
    // Star point at the centre and a grid line between two points.
    assert!(picture.rgb(x, y).0 < 120);
    assert!(picture.rgb(x + half, y).0 < 140);
    // Outside the board: the white background.
    assert!(is_light(picture.rgb(1.0, 1.0)) || layout.left < 1.0);
}

#[test]
fn stones_have_their_colours_and_the_last_move_is_marked() {
    let scene = Scene {
        stones: vec![
            (p("h8"), Color::Black, 1),
            (p("i9"), Color::White, 2),
            (p("a1"), Color::Black, 3),
        ],
        last_move: Some(p("a1")),
        ..Scene::default()
    };
    let (picture, layout) = draw_scene(640, 640, &scene);
    let (x, y) = off_center(&layout, p("h8"));
    assert!(is_dark(picture.rgb(x, y)), "{:?}", picture.rgb(x, y));
    let (x, y) = off_center(&layout, p("i9"));
    assert!(is_light(picture.rgb(x, y)), "{:?}", picture.rgb(x, y));
    // a1 is the bottom-left corner.
    let (x, y) = layout.center(p("a1"));
    assert!(x < 100.0 && y > 540.0);
    assert!(is_red(picture.rgb(x, y)), "{:?}", picture.rgb(x, y));
    let (x, y) = layout.center(p("h8"));
    assert!(!is_red(picture.rgb(x, y)));
    // An empty point stays wood.
    let (x, y) = off_center(&layout, p("c3"));
    assert!(is_wood(picture.rgb(x, y)));
}

#[test]
fn forbidden_points_hint_and_ghost_are_drawn() {
    let scene = Scene {
        stones: vec![(p("h8"), Color::Black, 1)],
        forbidden: vec![(p("e5"), ForbiddenKind::DoubleThree)],
        hint: Some(HintMark {
            pos: p("k11"),
            line: vec![p("c13")],
            color: Color::Black,
        }),
        ghost: Some((p("m3"), Color::Black)),
        ..Scene::default()
    };
    let (picture, layout) = draw_scene(600, 600, &scene);
    let (x, y) = layout.center(p("e5"));
    assert!(
        is_red(picture.rgb(x + 2.0, y + 2.0)),
        "{:?}",
        picture.rgb(x + 2.0, y + 2.0)
    );
    let (x, y) = layout.center(p("k11"));
    let ring = layout.stone_radius() * 1.05;
    assert!(
        is_blue(picture.rgb(x + ring, y)),
        "{:?}",
        picture.rgb(x + ring, y)
    );
    // The engine's continuation: a small translucent white stone.
    let (x, y) = off_center(&layout, p("c13"));
    let (r, g, b) = picture.rgb(x - layout.stone_radius() * 0.2, y);
    assert!(r > 200 && g > 190 && b > 150, "{:?}", (r, g, b));
    // The ghost is lighter than a real black stone but darker than the wood.
    let (x, y) = off_center(&layout, p("m3"));
    let ghost = picture.rgb(x, y);
    assert!(!is_dark(ghost) && ghost.0 < 170, "{ghost:?}");
}

#[test]
fn the_winning_five_is_highlighted() {
    let five = ["d4", "e5", "f6", "g7", "h8"].map(p);
    let scene = Scene {
        stones: five
            .iter()
            .enumerate()
            .map(|(i, &q)| (q, Color::White, i + 1))
            .collect(),
        winning_line: five.to_vec(),
        ..Scene::default()
    };
    let (picture, layout) = draw_scene(600, 600, &scene);
    let (x0, y0) = layout.center(p("e5"));
    let (x1, y1) = layout.center(p("f6"));
    let between = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    assert!(is_red(picture.rgb(between.0, between.1)));
    // The line runs under the stones: their middles (and numbers) stay clear.
    assert!(is_light(picture.rgb(x1, y1)), "{:?}", picture.rgb(x1, y1));
    let (x, y) = layout.center(p("d4"));
    let rim = layout.stone_radius() + layout.cell * 0.02;
    assert!(
        is_red(picture.rgb(x - rim, y)),
        "{:?}",
        picture.rgb(x - rim, y)
    );
}

#[test]
fn move_numbers_are_written_on_the_stones() {
    let scene = Scene {
        stones: vec![(p("h8"), Color::Black, 1)],
        last_move: Some(p("h8")),
        show_numbers: true,
        ..Scene::default()
    };
    let (picture, layout) = draw_scene(600, 600, &scene);
    let (x, y) = layout.center(p("h8"));
    let r = layout.stone_radius() * 0.35;
    let red = (0..20)
        .flat_map(|i| (0..20).map(move |j| (i, j)))
        .filter(|&(i, j)| {
            let px = x - r + f64::from(i) * r / 10.0;
            let py = y - r + f64::from(j) * r / 10.0;
            is_red(picture.rgb(px, py))
        })
        .count();
    assert!(red > 5, "the last move's number is red ({red} red pixels)");
}

#[test]
fn the_board_scales_and_stays_square() {
    for (w, h) in [(300, 300), (1200, 700), (500, 900)] {
        let scene = Scene {
            stones: vec![(p("o15"), Color::Black, 1), (p("a1"), Color::White, 2)],
            ..Scene::default()
        };
        let (picture, layout) = draw_scene(w, h, &scene);
        assert!(layout.side <= f64::from(w.min(h)));
        let (x, y) = off_center(&layout, p("o15"));
        assert!(is_dark(picture.rgb(x, y)), "{w}x{h}");
        let (x, y) = off_center(&layout, p("a1"));
        assert!(is_light(picture.rgb(x, y)), "{w}x{h}");
    }
}

#[test]
fn evaluation_graph_shades_blacks_advantage() {
    // 30 slots of 10 pixels: position i is drawn around x = 10 i + 5.
    let mut evals = vec![Some(0.0), Some(0.8), None, Some(0.8), Some(-0.8)];
    evals.resize(30, None);
    let picture = paint(300, 80, |cr| {
        render::draw_eval_graph(cr, 300.0, 80.0, &evals, 4).expect("graph");
    });
    // Black ahead after move 1: a dark bar above the midline, the background below it.
    assert!(
        is_dark(picture.rgb(15.0, 25.0)),
        "{:?}",
        picture.rgb(15.0, 25.0)
    );
    assert!(is_light(picture.rgb(15.0, 60.0)));
    // No evaluation for position 2: background on both sides.
    assert!(is_light(picture.rgb(25.0, 25.0)) && is_light(picture.rgb(25.0, 60.0)));
    // White ahead at position 4: a white bar below the midline, nothing dark above.
    assert_eq!(picture.rgb(43.0, 60.0), (255, 255, 255));
    assert!(is_light(picture.rgb(43.0, 25.0)));
    // Even at position 0: nothing but the midline.
    assert!(is_light(picture.rgb(5.0, 25.0)));
}

#[test]
fn the_cached_board_looks_like_a_direct_drawing() {
    let scene = Scene {
        stones: vec![
            (p("h8"), Color::Black, 1),
            (p("i9"), Color::White, 2),
            (p("a1"), Color::Black, 3),
            (p("o15"), Color::White, 4),
        ],
        last_move: Some(p("o15")),
        ghost: Some((p("c3"), Color::Black)),
        ..Scene::default()
    };
    let mut cache = BoardCache::default();
    for (width, height) in [(420, 380), (733, 615)] {
        let (direct, layout) = draw_scene(width, height, &scene);
        let mut frame = || {
            paint(width, height, |cr| {
                cache
                    .draw(cr, width, height, 1, &scene)
                    .expect("cached draw");
            })
        };
        // The first frame at a size fills the cache, the second comes from it.
        frame();
        let cached = frame();
        let worst = largest_difference(&direct, &cached);
        // Stones are copied at sub-pixel offsets, which shifts their antialiased rims a little.
        assert!(
            worst <= 40,
            "{width}x{height}: pixels differ by up to {worst}"
        );
        let (x, y) = layout.center(p("h8"));
        assert!(is_dark(cached.rgb(x, y)));
        let (x, y) = layout.center(p("i9"));
        assert!(is_light(cached.rgb(x, y)));
        assert!(is_wood(
            cached.rgb(layout.left + 3.0, layout.top + layout.side / 2.0)
        ));
        let mean = mean_difference(&direct, &cached);
        assert!(mean < 0.2, "{width}x{height}: mean difference {mean}");
    }
}

/// The mean difference per channel between two pictures of one size.
fn mean_difference(a: &Picture, b: &Picture) -> f64 {
    let total: u64 = a
        .data
        .iter()
        .zip(&b.data)
        .map(|(x, y)| u64::from(x.abs_diff(*y)))
        .sum();
    total as f64 / a.data.len() as f64
}

/// The largest difference of any channel of any pixel between two pictures of one size.
fn largest_difference(a: &Picture, b: &Picture) -> u8 {
    assert_eq!((a.width, a.data.len()), (b.width, b.data.len()));
    a.data
        .iter()
        .zip(&b.data)
        .map(|(x, y)| x.abs_diff(*y))
        .max()
        .unwrap_or(0)
}
