// Justified rows, the layout of `gallery sheet --row-height` (ContactSheet.rows in Swift):
// items join a row until the row at `rowHeight` would fill `width`; a full row is then
// scaled to fill it exactly, and the last row keeps at most `rowHeight`. A tile at
// `rowHeight` is at most the row's width and at least a third as wide as it is high (a
// panorama is shown cropped instead of squashing its row). A tile is at most `width` wide
// and a row at most 4096 high, so a hostile aspect ratio cannot make a tile of millions of
// pixels.
export const maxRowHeight = 4096;

export function rows(given, width, spacing, rowHeight) {
  const widest = Math.max(1, width / rowHeight);
  const aspectRatios = given.map((ratio) => Math.min(Math.max(ratio, 1.0 / 3.0), widest));
  const result = [];
  let current = [];
  let sum = 0;
  const close = (justify) => {
    if (current.length === 0) return;
    const gaps = spacing * (current.length - 1);
    let height = justify ? (width - gaps) / sum : Math.min(rowHeight, (width - gaps) / sum);
    height = Math.min(Math.max(1, height), maxRowHeight);
    result.push(current.map((index) => ({
      index,
      width: Math.min(width, Math.max(1, Math.round(aspectRatios[index] * height))),
      height: Math.round(height),
    })));
    current = [];
    sum = 0;
  };
  for (let index = 0; index < aspectRatios.length; index++) {
    current.push(index);
    sum += aspectRatios[index];
    if (sum * rowHeight + spacing * (current.length - 1) >= width) close(true);
  }
  close(false);
  return result;
}

// Places the rows: every tile's x, y, width and height, and the total height.
export function place(aspectRatios, width, spacing, rowHeight) {
  const tiles = new Array(aspectRatios.length);
  let y = 0;
  let rowIndex = 0;
  for (const row of rows(aspectRatios, width, spacing, rowHeight)) {
    let x = 0;
    for (const tile of row) {
      tiles[tile.index] = { x, y, width: tile.width, height: tile.height, row: rowIndex };
      x += tile.width + spacing;
    }
    y += row[0].height + spacing;
    rowIndex++;
  }
  return { tiles, height: Math.max(0, y - spacing) };
}

// The index of the first tile whose bottom is below `top` (tiles are in row order).
export function firstVisible(tiles, top) {
  let low = 0;
  let high = tiles.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (tiles[middle].y + tiles[middle].height < top) low = middle + 1;
    else high = middle;
  }
  return low;
}

// Where a drop at (x, y) inserts: the index of the item it goes before (length: the end).
export function gapAt(tiles, x, y, spacing) {
  if (tiles.length === 0) return 0;
  let index = firstVisible(tiles, y - spacing);
  if (index >= tiles.length) return tiles.length;
  const row = tiles[index].row;
  if (y < tiles[index].y - spacing) return index;
  while (index < tiles.length && tiles[index].row === row) {
    const tile = tiles[index];
    if (x < tile.x + tile.width / 2) return index;
    index++;
  }
  return index;
}
