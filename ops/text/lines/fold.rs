//! Wrapping a line at a width as GNU `fold -w` (and `fold -s -w`) does: columns count one a
//! character, a tab moves to the next multiple of 8, a backspace takes one back and a carriage
//! return goes to column 0. A character that would pass the width starts a new line, unless the
//! line is still empty (so a tab wider than the width stays whole). With `at_spaces`, the line
//! breaks after its last blank (space or tab) when it has one, and what followed the blank
//! moves to the next line.

const TAB: usize = 8;

fn advance(column: usize, c: char) -> usize {
    match c {
        '\u{8}' => column.saturating_sub(1),
        '\r' => 0,
        '\t' => column + TAB - column % TAB,
        _ => column + 1,
    }
}

/// `line` (without its line break) cut into pieces of at most `width` columns.
pub(super) fn fold(line: &str, width: usize, at_spaces: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Vec<char> = Vec::new();
    let mut column = 0;
    for c in line.chars() {
        loop {
            let next = advance(column, c);
            if next <= width {
                column = next;
                current.push(c);
                break;
            }
            if at_spaces && let Some(blank) = current.iter().rposition(|&b| b == ' ' || b == '\t') {
                let rest = current.split_off(blank + 1);
                out.push(current.iter().collect());
                current = rest;
                column = current.iter().fold(0, |col, &ch| advance(col, ch));
                continue;
            }
            if current.is_empty() {
                column = next;
                current.push(c);
                break;
            }
            out.push(current.iter().collect());
            current.clear();
            column = 0;
        }
    }
    out.push(current.into_iter().collect());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_tabs_and_blanks() {
        assert_eq!(fold("abcdefg", 3, false), ["abc", "def", "g"]);
        assert_eq!(fold("", 3, false), [""]);
        assert_eq!(fold("ab\tc", 4, false), ["ab", "\t", "c"]);
        assert_eq!(fold("the quick brown fox", 10, true), ["the quick ", "brown fox"]);
        assert_eq!(fold("abcdefghijkl mn", 5, true), ["abcde", "fghij", "kl mn"]);
    }
}
