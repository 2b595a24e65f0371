def parse_csv_line(line: str, delimiter: str = ",") -> list[str]:
    """Split one CSV line into fields, honouring double-quoted fields."""
