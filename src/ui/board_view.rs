//! The board widget: a `gtk::DrawingArea` drawn by [`render`](super::render), with a click
//! gesture, a pointer-motion controller for the ghost stone and a tooltip naming forbidden
//! points. It asks its [`BoardHandler`] (the window) what to draw and tells it what happened.

use super::render::{BoardCache, Layout, Scene};
use crate::rules::Pos;
use gtk4 as gtk;
use gtk4::prelude::*;
use std::cell::RefCell;
use std::rc::{Rc, Weak};

/// What the board needs from the window.
pub trait BoardHandler {
    fn scene(&self) -> Scene;
    fn clicked(self: &Rc<Self>, p: Pos);
    fn hovered(&self, p: Option<Pos>);
    /// Tooltip text for a point, if it has one.
    fn tooltip(&self, p: Pos) -> Option<String>;
}

/// The layout of `area` at its current size.
pub fn layout(area: &gtk::DrawingArea) -> Layout {
    Layout::new(f64::from(area.width()), f64::from(area.height()))
}

/// Wires drawing and input of `area` to `handler` (held weakly: the window owns the area).
pub fn attach<H: BoardHandler + 'static>(area: &gtk::DrawingArea, handler: &Rc<H>) {
    let weak: Weak<H> = Rc::downgrade(handler);
    area.set_draw_func({
        let weak = weak.clone();
        let cache = RefCell::new(BoardCache::default());
        move |area, cr, width, height| {
            if let Some(handler) = weak.upgrade() {
                // A failed draw leaves the area blank until the next frame; nothing else to do.
                let _ = cache.borrow_mut().draw(
                    cr,
                    width,
                    height,
                    area.scale_factor(),
                    &handler.scene(),
                );
            }
        }
    });

    let click = gtk::GestureClick::new();
    click.set_button(gtk::gdk::BUTTON_PRIMARY);
    click.connect_released({
        let weak = weak.clone();
        move |gesture, _, x, y| {
            let Some(area) = gesture.widget().and_downcast::<gtk::DrawingArea>() else {
                return;
            };
            area.grab_focus();
            if let (Some(handler), Some(p)) = (weak.upgrade(), layout(&area).pos_at(x, y)) {
                handler.clicked(p);
            }
        }
    });
    area.add_controller(click);

    let motion = gtk::EventControllerMotion::new();
    motion.connect_motion({
        let weak = weak.clone();
        move |controller, x, y| {
            let Some(area) = controller.widget().and_downcast::<gtk::DrawingArea>() else {
                return;
            };
            if let Some(handler) = weak.upgrade() {
                handler.hovered(layout(&area).pos_at(x, y));
            }
        }
    });
    motion.connect_leave({
        let weak = weak.clone();
        move |_| {
            if let Some(handler) = weak.upgrade() {
                handler.hovered(None);
            }
        }
    });
    area.add_controller(motion);

    area.connect_query_tooltip(move |area, x, y, _keyboard, tooltip| {
        let Some(handler) = weak.upgrade() else {
            return false;
        };
        let Some(p) = layout(area).pos_at(f64::from(x), f64::from(y)) else {
            return false;
        };
        match handler.tooltip(p) {
            Some(text) => {
                tooltip.set_text(Some(&text));
                true
            }
            None => false,
        }
    });
}
