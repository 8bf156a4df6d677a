"""The dna organism: stores, engine, node, command line and debugger."""
