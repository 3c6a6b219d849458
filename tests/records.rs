//! Game records against real files and random input: every sample in `fixtures/records/` loads
//! (or fails with the reason asserted here), writable formats round-trip random legal games,
//! conversions keep the moves, and no parser panics on random bytes or mutated samples.

use gobang::game::record::{move_notation, GameRecord, RecordError, RecordFormat, RecordedMove};
use gobang::game::{EndReason, ForbiddenPolicy, Game, GameResult};
use gobang::rules::{Color, Move, Pos, Rule};
use proptest::prelude::*;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/records")
        .join(name)
}

fn notation(record: &GameRecord) -> String {
    record
        .moves
        .iter()
        .map(|m| move_notation(m.mv))
        .collect::<Vec<_>>()
        .join(" ")
}

const SAMPLES: [(&str, RecordFormat); 6] = [
    ("renlib_v3.lib", RecordFormat::RenLib),
    ("gowrite.sgf", RecordFormat::Sgf),
    ("two_trees.sgf", RecordFormat::Sgf),
    ("zjrenju_test6.sgf", RecordFormat::Sgf),
    ("zjrenju_classroom.sgf", RecordFormat::Sgf),
    ("yamaguchi_tree.sgf", RecordFormat::Sgf),
];

#[test]
fn every_sample_loads_and_replays() {
    let expected = [
        (
            "renlib_v3.lib",
            "h8 h9 j10 i9 g9 i7 i8 g8 f7 h10 h11 f9 e10 j8 k7 i12 j11 j12 h12 k13 l14 i13 k11 \
             l11 i11 g11 f12 k9 l10 j5 g13 f14 j6 h5 i5 h4 h7 h6 g5 h3 h2 i4 m9 l8 n8 o7 g2 g4 \
             j4 i6 j7",
        ),
        ("gowrite.sgf", "h8 i8"),
        (
            "two_trees.sgf",
            "h8 i9 i7 g9 j7 g8 j9 g7 g10 j8 k7 l7 k6 k8 j6 i8",
        ),
        ("zjrenju_test6.sgf", "h8 i9 i7 g9 j7 g8 j9 g7 g6 h10"),
        (
            "zjrenju_classroom.sgf",
            "h8 h9 h6 i10 i6 i9 g9 g8 j11 i7 i8",
        ),
        ("yamaguchi_tree.sgf", "d12"),
    ];
    for (name, moves) in expected {
        let record = GameRecord::load(fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let moves = moves.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(notation(&record), moves, "{name}");
        let game = record.to_game().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(game.moves().len(), record.moves.len(), "{name}");
    }
    let zj = GameRecord::load(fixture("zjrenju_classroom.sgf")).unwrap();
    assert_eq!(zj.date.as_deref(), Some("2024年04月25日"));
    // Content sniffing finds the same format as the extension.
    for (name, format) in SAMPLES {
        let bytes = std::fs::read(fixture(name)).unwrap();
        assert_eq!(RecordFormat::detect(&bytes), Some(format), "{name}");
    }
}

#[test]
fn renlib_tree_keeps_every_variation() {
    let record = GameRecord::load(fixture("renlib_v3.lib")).unwrap();
    let tree = record
        .tree
        .as_ref()
        .expect("a RenLib record keeps its tree");
    // 1025 nodes in the file: the root and 1024 moves, none merged; 457 lines end in a leaf.
    assert_eq!(tree.len(), 1024);
    assert_eq!(tree.main_line(), record.move_list());
    let lines: Vec<Vec<Move>> = tree.leaves().map(|leaf| tree.line(leaf)).collect();
    assert_eq!(lines.len(), 457);
    let main_line = notation(&record);
    let to_text = |line: &[Move]| {
        line.iter()
            .map(|&m| move_notation(m))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let second = format!("{} g6 h5", main_line.split(" g13").next().unwrap());
    assert_eq!(to_text(&lines[1]), second);
    // Every variation is a legal renju game.
    for line in &lines {
        let mut variation = GameRecord::new(Rule::Renju);
        variation.moves = line.iter().copied().map(RecordedMove::new).collect();
        variation
            .to_game()
            .unwrap_or_else(|e| panic!("{}: {e}", to_text(line)));
    }
    // SGF keeps the whole tree as variations; plain text keeps the main line.
    let sgf = record.write(RecordFormat::Sgf).unwrap();
    let read = GameRecord::parse(&sgf, RecordFormat::Sgf).unwrap();
    assert!(read == record, "the tree changed through SGF");
    let text = record.write(RecordFormat::Text).unwrap();
    let read = GameRecord::parse(&text, RecordFormat::Text).unwrap();
    assert_eq!((read.move_list(), read.tree), (record.move_list(), None));
}

#[test]
fn sgf_variations_are_kept_as_a_tree() {
    // The Yamaguchi file is a RenLib library converted to SGF: thousands of variations.
    let record = GameRecord::load(fixture("yamaguchi_tree.sgf")).unwrap();
    let tree = record.tree.as_ref().expect("variations");
    assert_eq!(tree.main_line(), record.move_list());
    let roots: Vec<String> = tree
        .children(None)
        .filter_map(|n| tree.mv(n).map(move_notation))
        .collect();
    assert_eq!(roots[..3], ["d12", "l12", "g9"]);
    assert_eq!(tree.leaves().count(), 4035);
    let sgf = record.write(RecordFormat::Sgf).unwrap();
    let read = GameRecord::parse(&sgf, RecordFormat::Sgf).unwrap();
    assert!(read == record, "the tree changed through SGF");
    // A single line has no tree; a variation that cannot be read drops the tree, not the game.
    let two = GameRecord::load(fixture("two_trees.sgf")).unwrap();
    assert_eq!(two.tree.map(|t| t.leaves().count()), Some(4));
    let broken = GameRecord::parse(b"(;B[hh](;W[ii])(;W[zz]))", RecordFormat::Sgf).unwrap();
    assert_eq!(
        (notation(&broken), broken.tree),
        ("h8 i7".to_string(), None)
    );
    let single = GameRecord::load(fixture("zjrenju_test6.sgf")).unwrap();
    assert_eq!(single.tree, None);
}

#[test]
fn chinese_text_is_decoded_and_written_as_utf8() {
    // UTF-8 without CA, GBK without CA (guessed), GBK declared as CA[gb2312].
    for name in [
        "zjrenju_test6.sgf",
        "zjrenju_test6_gbk.sgf",
        "zjrenju_test6_gb2312.sgf",
    ] {
        let record = GameRecord::load(fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(record.date.as_deref(), Some("2024年04月25日"), "{name}");
        assert_eq!(
            notation(&record),
            "h8 i9 i7 g9 j7 g8 j9 g7 g6 h10",
            "{name}"
        );
        let bytes = record.write(RecordFormat::Sgf).unwrap();
        let text = String::from_utf8(bytes.clone()).expect("SGF is written as UTF-8");
        assert!(
            text.contains("CA[UTF-8]") && text.contains("DT[2024年04月25日]"),
            "{text}"
        );
        assert_eq!(
            GameRecord::parse(&bytes, RecordFormat::Sgf).unwrap(),
            record
        );
    }
    // A GBK file mislabelled as UTF-8 keeps its moves; the text is replaced, not refused.
    let gbk = std::fs::read(fixture("zjrenju_test6_gb2312.sgf")).unwrap();
    let at = gbk
        .windows(10)
        .position(|w| w == b"CA[gb2312]")
        .expect("CA");
    let bytes = [&gbk[..at], b"CA[UTF-8]", &gbk[at + 10..]].concat();
    let record = GameRecord::parse(&bytes, RecordFormat::Sgf).unwrap();
    assert_eq!(record.moves.len(), 10);
    assert!(record.date.is_some_and(|d| d.contains('\u{fffd}')));
}

#[test]
fn malformed_corpus_fails_with_clear_reasons() {
    let cases = [
        (
            "truncated.sgf",
            "SGF record, byte 36: the file ends inside the game tree (missing ')': truncated?)",
        ),
        (
            "occupied.sgf",
            "move 2 (h8) cannot be replayed: h8 is already occupied",
        ),
        (
            "wrong_order.sgf",
            "SGF record, move 2 (B[ii]): Black moves, but it is White's turn",
        ),
        (
            "go_19x19.sgf",
            "SGF record, byte 7: board size SZ[19] is not supported (only 15x15)",
        ),
        (
            "bad_point.sgf",
            "SGF record, move 2 (W[zz]): 'zz' is not an SGF point",
        ),
        (
            "occupied.txt",
            "move 4 (h9) cannot be replayed: h9 is already occupied",
        ),
        (
            "bad_point.txt",
            "plain notation record, line 1, column 7: 'q10' is not a move",
        ),
        (
            "board_20x20.psq",
            "Piskvork .psq record, line 1, column 1: board size '20x20' is not supported",
        ),
        (
            "off_board.psq",
            "Piskvork .psq record, line 3, column 1: move 2: (8, 17) is off the 15x15 board",
        ),
        (
            "truncated.lib",
            "RenLib .lib record, byte 98: the node's extended flags are cut off",
        ),
        (
            "binary_junk.lib",
            "RenLib .lib record, byte 0: not a RenLib library",
        ),
        (
            "forbidden_then_more.txt",
            "move 10 (a9) cannot be replayed: the game is over",
        ),
    ];
    for (name, expected) in cases {
        let path = fixture(&format!("corpus/{name}"));
        let error = GameRecord::load(&path)
            .and_then(|record| record.to_game())
            .expect_err(name);
        let message = error.to_string();
        assert!(message.starts_with(expected), "{name}: {message}");
    }
    let missing = GameRecord::load(fixture("corpus/none.sgf")).expect_err("missing");
    assert!(matches!(missing, RecordError::Io { .. }), "{missing}");
    assert!(missing.to_string().contains("none.sgf"), "{missing}");
}

#[test]
fn conversions_keep_the_moves() {
    for (name, _) in SAMPLES {
        let record = GameRecord::load(fixture(name)).unwrap();
        let mut current = record.clone();
        for format in [RecordFormat::Sgf, RecordFormat::Psq, RecordFormat::Text] {
            let bytes = current.write(format).unwrap();
            current = GameRecord::parse(&bytes, format).unwrap();
            assert_eq!(
                current.move_list(),
                record.move_list(),
                "{name} via {format}"
            );
        }
    }
}

#[test]
fn deep_nesting_and_long_inputs_do_not_overflow() {
    let deep = "(".repeat(1_000_000);
    assert!(GameRecord::parse(deep.as_bytes(), RecordFormat::Sgf).is_err());
    let mut nested = "(;B[hh]".to_string();
    nested.push_str(&"(".repeat(100_000));
    nested.push_str(";W[ii](;B[jj])");
    assert!(GameRecord::parse(nested.as_bytes(), RecordFormat::Sgf).is_err());
    nested.push_str(&")".repeat(100_001));
    let record = GameRecord::parse(nested.as_bytes(), RecordFormat::Sgf).unwrap();
    assert_eq!(notation(&record), "h8 i7 j6");
    let passes = "pass ".repeat(200_000);
    let error = GameRecord::parse(passes.as_bytes(), RecordFormat::Text).err();
    assert_eq!(
        error.map(|e| e.to_string()).as_deref(),
        Some(
            "plain notation record, line 1, column 5001: more than 1000 moves, longer than any \
             game on a 15x15 board"
        )
    );
}

/// A random legal game: each step either passes or plays one of the empty points (Black may
/// hit a forbidden point and lose, as in tournament play).
fn random_game(steps: &[(u16, u8)], passes: bool) -> Game {
    let mut game = Game::new(Rule::Renju).with_forbidden_policy(ForbiddenPolicy::Lose);
    for &(choice, roll) in steps {
        if game.is_over() {
            break;
        }
        if passes && roll == 0 {
            game.pass().unwrap();
            continue;
        }
        let empty: Vec<Pos> = Pos::all().filter(|&p| game.board().is_empty(p)).collect();
        game.play(empty[choice as usize % empty.len()]).unwrap();
    }
    game
}

fn steps() -> impl Strategy<Value = Vec<(u16, u8)>> {
    prop::collection::vec((any::<u16>(), 0..12u8), 0..80)
}

fn name() -> impl Strategy<Value = Option<String>> {
    prop::option::of("[A-Za-z][A-Za-z0-9_.]{0,10}")
}

fn text() -> impl Strategy<Value = Option<String>> {
    prop::option::of("\\PC[\\PC\n\\]\\\\]{0,20}")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn sgf_round_trips_everything(
        steps in steps(),
        black in name(),
        white in name(),
        date in name(),
        comment in text(),
        extras in prop::collection::vec((prop::option::of(0..10_000_000u64), text()), 80),
        resign in any::<bool>(),
    ) {
        let game = random_game(&steps, true);
        let mut record = GameRecord::from_game(&game);
        record.black = black;
        record.white = white;
        record.date = date;
        record.comment = comment;
        for (recorded, (time_ms, comment)) in record.moves.iter_mut().zip(extras) {
            recorded.time_ms = time_ms;
            recorded.comment = comment;
        }
        if resign && record.result.is_none() {
            record.result = Some(GameResult {
                winner: Some(Color::White),
                reason: EndReason::Resignation,
            });
        }
        let bytes = record.write(RecordFormat::Sgf).unwrap();
        let read = GameRecord::parse(&bytes, RecordFormat::Sgf).unwrap();
        prop_assert_eq!(&read, &record);
        let replayed = read.to_game().unwrap();
        prop_assert_eq!(replayed.moves(), game.moves());
        prop_assert_eq!(replayed.result(), record.result);
    }

    #[test]
    fn psq_round_trips_moves_times_and_names(
        steps in steps(),
        black in name(),
        white in name(),
        times in prop::collection::vec(prop::option::of(0..100_000_000u64), 80),
    ) {
        let game = random_game(&steps, false);
        let mut record = GameRecord::from_game(&game);
        // A name that mentions a rule reads as a Gomocup tournament tag.
        let plain = |n: &String| {
            let lower = n.to_ascii_lowercase();
            !["renju", "standard", "freestyle"].iter().any(|w| lower.contains(w))
        };
        record.black = black.filter(plain);
        record.white = white.filter(plain);
        for (recorded, time_ms) in record.moves.iter_mut().zip(times) {
            recorded.time_ms = time_ms;
        }
        let bytes = record.write(RecordFormat::Psq).unwrap();
        let read = GameRecord::parse(&bytes, RecordFormat::Psq).unwrap();
        prop_assert_eq!(read.move_list(), record.move_list());
        let times: Vec<_> = record.moves.iter().map(|m| Some(m.time_ms.unwrap_or(0))).collect();
        let read_times: Vec<_> = read.moves.iter().map(|m| m.time_ms).collect();
        prop_assert_eq!(read_times, times);
        prop_assert_eq!(&read.black, &record.black);
        prop_assert_eq!(&read.white, &record.white);
        prop_assert_eq!(read.rule, Rule::Freestyle);
    }

    #[test]
    fn text_round_trips_moves(steps in steps()) {
        let game = random_game(&steps, true);
        let record = GameRecord::from_game(&game);
        let bytes = record.write(RecordFormat::Text).unwrap();
        let read = GameRecord::parse(&bytes, RecordFormat::Text).unwrap();
        prop_assert_eq!(read.move_list(), record.move_list());
        prop_assert_eq!(read.to_game().unwrap().result(), game.result());
    }

    #[test]
    fn parsers_survive_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        check_any_input(&bytes);
    }

    #[test]
    fn parsers_survive_random_text(text in "[(;)\\[\\]BWCRESZGMPhabcio0-9,\\\\ \n-]{0,300}") {
        check_any_input(text.as_bytes());
        let mut psq = b"Piskvorky 15x15, 11:11, 0\n".to_vec();
        psq.extend_from_slice(text.as_bytes());
        check_any_input(&psq);
    }

    #[test]
    fn parsers_survive_mutated_samples(
        sample in 0..SAMPLES.len(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0..4u8, any::<u8>()), 1..8),
    ) {
        let (name, _) = SAMPLES[sample];
        let mut bytes = std::fs::read(fixture(name)).unwrap();
        // The big tree: mutate a prefix so each case stays fast.
        bytes.truncate(8192);
        for (index, kind, byte) in edits {
            if bytes.is_empty() {
                break;
            }
            let at = index.index(bytes.len());
            match kind {
                0 => bytes[at] = byte,
                1 => { bytes.remove(at); }
                2 => bytes.insert(at, byte),
                _ => bytes.truncate(at),
            }
        }
        check_any_input(&bytes);
    }
}

/// Parsing never panics; whatever parses can be replayed, written and read back with its moves.
fn check_any_input(bytes: &[u8]) {
    for format in RecordFormat::ALL {
        let Ok(record) = GameRecord::parse(bytes, format) else {
            continue;
        };
        let _ = record.to_game();
        let sgf = record.write(RecordFormat::Sgf).unwrap();
        let again = GameRecord::parse(&sgf, RecordFormat::Sgf).unwrap();
        assert_eq!(again.move_list(), record.move_list());
        let text = record.write(RecordFormat::Text).unwrap();
        let again = GameRecord::parse(&text, RecordFormat::Text).unwrap();
        assert_eq!(again.move_list(), record.move_list());
        if !record.move_list().contains(&Move::Pass) {
            let psq = record.write(RecordFormat::Psq).unwrap();
            let again = GameRecord::parse(&psq, RecordFormat::Psq).unwrap();
            assert_eq!(again.move_list(), record.move_list());
        }
    }
    let _ = RecordFormat::detect(bytes);
}

#[test]
fn recorded_move_defaults() {
    let mv = RecordedMove::new(Move::Pass);
    assert_eq!((mv.time_ms, mv.comment), (None, None));
}
