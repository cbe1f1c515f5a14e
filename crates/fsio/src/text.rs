//! Places in a file's text, as people read them.

/// 1-based line and column (in characters) of byte `offset` of `text`: an offset past the
/// end counts as the end, and one inside a character as that character's start.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::line_column;

    #[test]
    fn lines_and_columns_are_one_based_and_count_characters() {
        let text = "ab\ncé\nd";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 2), (1, 3));
        assert_eq!(line_column(text, 3), (2, 1));
        // Inside `é` (two bytes): its start.
        assert_eq!(line_column(text, 5), (2, 2));
        assert_eq!(line_column(text, 6), (2, 3));
        assert_eq!(line_column(text, 1000), (3, 2));
    }
}
