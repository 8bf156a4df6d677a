"""The language server for `.hl` files (`hale lsp`).

analysis.py keeps each genome loaded and checked edit by edit (deps.py,
incremental.py and memo.py check again only what an edit can change); index.py
finds every name of a checked module and what it names; navigate.py and
complete.py answer the editor's questions from those; server.py speaks
LSP through pygls. It reuses the loader, the checker and the formatter,
and knows nothing of dna beyond where a genome's root is: the organization's
admission is handed in by the host (hale_runtime's `hale lsp`).
"""
