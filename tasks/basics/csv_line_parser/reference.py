def parse_csv_line(line: str, delimiter: str = ",") -> list[str]:
    """Split one CSV line into fields, honouring double-quoted fields."""
    if len(delimiter) != 1 or delimiter == '"':
        raise ValueError("delimiter must be a single character other than '\"'")
    fields: list[str] = []
    n = len(line)
    i = 0
    while True:
        if i < n and line[i] == '"':
            parts: list[str] = []
            i += 1
            while True:
                close = line.find('"', i)
                if close == -1:
                    raise ValueError("unterminated quoted field")
                parts.append(line[i:close])
                if close + 1 < n and line[close + 1] == '"':
                    parts.append('"')
                    i = close + 2
                else:
                    i = close + 1
                    break
            if i < n and line[i] != delimiter:
                raise ValueError(f"unexpected character after closing quote at position {i}")
            fields.append("".join(parts))
        else:
            end = line.find(delimiter, i)
            if end == -1:
                end = n
            fields.append(line[i:end])
            i = end
        if i >= n:
            return fields
        i += 1
