// Package textfmt spells values for a terminal's tables: a long text clipped
// to a column, a duration in seconds as 1h02m or 42s; and values as the
// command line's --json prints them. The packages that render the command
// line's output share it.
package textfmt

import (
	"encoding/json"
	"fmt"
	"io"
)

// Clip shortens s to n-1 bytes and an ellipsis when it is longer than n
// bytes, so that one long text does not widen a whole table column.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// Seconds spells a duration in seconds as 1h02m, 3m07s or 42s: coarse
// enough to read at a glance in a table.
func Seconds(s float64) string {
	switch {
	case s >= 3600:
		return fmt.Sprintf("%dh%02dm", int(s)/3600, int(s)%3600/60)
	case s >= 60:
		return fmt.Sprintf("%dm%02ds", int(s)/60, int(s)%60)
	}
	return fmt.Sprintf("%.0fs", s)
}

// OrDash is s, or "-" for an empty cell, so that a table's columns stay
// aligned and an absent value reads as absent.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// JSON writes v to w as JSON indented by two spaces, as every command's
// --json prints it.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
