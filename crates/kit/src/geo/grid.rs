//! A one-degree grid over the Earth that lists, per cell, the items filed in it: the places
//! index and the land and lake polygons each keep one.
//!
//! The lists are stored as one array sorted by cell plus where each cell starts (two `u32`
//! per item and 64,801 offsets, about 260 KB), rather than a vector per cell, which would cost
//! a heap block for each of the 64,800 cells.

/// Rows (latitude -90 to 90) times columns (longitude -180 to 180).
const CELLS: usize = 180 * 360;

/// Items per one-degree cell.
pub struct Grid {
    /// Where each cell's items start in `items`; cell `c` holds `items[starts[c]..starts[c + 1]]`.
    starts: Vec<u32>,
    items: Vec<u32>,
}

/// The cell of a coordinate: row from latitude -90, column from longitude -180; values outside
/// the ranges fall in the edge cells.
pub fn cell(lat: f64, lng: f64) -> usize {
    let r = ((lat + 90.0).floor().clamp(0.0, 179.0)) as usize;
    let c = ((lng + 180.0).floor().clamp(0.0, 359.0)) as usize;
    at(r, c)
}

/// The cell in `row` (0 to 179) and `column` (0 to 359).
pub fn at(row: usize, column: usize) -> usize {
    row * 360 + column
}

/// The row and column of cell `c`.
pub fn row_column(c: usize) -> (usize, usize) {
    (c / 360, c % 360)
}

impl Grid {
    /// Files each `(cell, item)` pair; within a cell, items keep ascending order.
    pub fn new(mut pairs: Vec<(u32, u32)>) -> Grid {
        pairs.sort_unstable();
        let mut starts = vec![0u32; CELLS + 1];
        for &(c, _) in &pairs {
            starts[c as usize + 1] += 1;
        }
        for c in 1..starts.len() {
            starts[c] += starts[c - 1];
        }
        Grid { starts, items: pairs.into_iter().map(|(_, i)| i).collect() }
    }

    /// The items filed in cell `c` (a value from [`cell`]).
    pub fn items(&self, c: usize) -> &[u32] {
        &self.items[self.starts[c] as usize..self.starts[c + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_found_in_their_cells_only() {
        let paris = cell(48.85, 2.35);
        let sydney = cell(-33.87, 151.21);
        assert_eq!(paris, (48 + 90) * 360 + 182);
        let grid = Grid::new(vec![(sydney as u32, 7), (paris as u32, 3), (paris as u32, 1)]);
        assert_eq!(grid.items(paris), &[1, 3]);
        assert_eq!(grid.items(sydney), &[7]);
        assert!(grid.items(paris + 1).is_empty());
        // The edges: the poles and the antimeridian fall in the outermost cells.
        assert_eq!(cell(90.0, 180.0), CELLS - 1);
        assert_eq!(cell(-90.0, -180.0), 0);
        assert_eq!(row_column(paris), (138, 182));
        assert_eq!(at(138, 182), paris);
        assert!(Grid::new(Vec::new()).items(CELLS - 1).is_empty());
    }
}
