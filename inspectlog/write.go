package inspectlog

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/corpus"
)

// Format is a file format of inspect's logs.
type Format string

const (
	// FormatEval is inspect's default log format: a zip of JSON entries
	// (writeEval).
	FormatEval Format = "eval"
	// FormatJSON is the whole EvalLog as one JSON document.
	FormatJSON Format = "json"
)

// ParseFormat is the format a flag names; anything else is an error naming
// the formats.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatEval, FormatJSON:
		return f, nil
	}
	return "", fmt.Errorf("--format %q: want eval (inspect's default, a zip) or json", s)
}

// Write writes the log into dir in format f under the name inspect gives
// its own logs (fileName), and returns the path. It writes a temporary file
// and renames it, so a failed write leaves no half log.
func Write(dir string, l Log, f Format) (string, error) {
	if _, err := ParseFormat(string(f)); err != nil {
		return "", err
	}
	path := filepath.Join(dir, fileName(l, f))
	err := corpus.WriteAtomic(path, func(w io.Writer) error {
		if f == FormatEval {
			return writeEval(w, l)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(l)
	})
	if err != nil {
		return "", fmt.Errorf("inspect export: %w", err)
	}
	return path, nil
}

// Export writes the eval logs of recorded run runID (Load) into dir in
// format f (Write) and says on w which files it wrote, with their samples.
func Export(ctx context.Context, src Source, benches bench.Set, runID, dir string, f Format, w io.Writer) error {
	if _, err := ParseFormat(string(f)); err != nil {
		return err
	}
	logs, err := Load(ctx, src, benches, runID)
	if err != nil {
		return err
	}
	for _, l := range logs {
		path, err := Write(dir, l, f)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote %s: %d samples\n", path, len(l.Samples))
	}
	return nil
}
