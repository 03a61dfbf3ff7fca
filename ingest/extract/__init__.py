"""Pure text rules and parsers: what a turn or a document says, without any I/O."""
