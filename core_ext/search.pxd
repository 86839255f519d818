# The search's C-level declarations (SearchState, search_root, ...) are in core.pxd, with the
# rest of the core: the search is compiled in ponderosa.core_ext.core, one C unit with everything
# it calls per node. search.pyx only re-exports its Python names.
