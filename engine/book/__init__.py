"""Opening books: the file format (file), building from games (build), choosing a move
(select), the engine's view of its books (opening_book) and export (export)."""
