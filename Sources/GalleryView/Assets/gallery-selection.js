// A gallery's selection: click, Shift+click (a range from the anchor), Ctrl+click (toggle).
export function installSelection(page) {
  const { state, grid } = page;

  page.indexOf = (itemID) => state.items.findIndex((item) => item.id === itemID);

  page.select = function select(itemID, { extend = false, toggle = false } = {}) {
    if (extend && state.anchor) {
      const [a, b] = [page.indexOf(state.anchor), page.indexOf(itemID)].sort((x, y) => x - y);
      if (!toggle) state.selected.clear();
      for (let index = a; index <= b; index++) state.selected.add(state.items[index].id);
    } else if (toggle) {
      if (state.selected.has(itemID)) state.selected.delete(itemID); else state.selected.add(itemID);
      state.anchor = itemID;
    } else {
      state.selected = new Set([itemID]);
      state.anchor = itemID;
    }
    state.focus = itemID;
    page.render();
  };

  // The selected items' ids, in the gallery's order.
  page.selectedIDs = () => state.items.filter((item) => state.selected.has(item.id)).map((item) => item.id);

  grid.addEventListener('click', (event) => {
    const tile = event.target.closest('.tile');
    if (!tile) { state.selected.clear(); page.render(); return; }
    page.select(tile.dataset.id, { extend: event.shiftKey, toggle: event.ctrlKey || event.metaKey });
  });
  grid.addEventListener('dblclick', (event) => {
    const tile = event.target.closest('.tile');
    if (tile) page.openViewer(tile.dataset.id);
  });
}
