package inspectlog

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/clinevo/clinevo/bench"
)

// Write writes the log into dir under the name inspect gives its own logs
// (fileName), in the JSON log format inspect reads, and returns the path. It
// writes a temporary file and renames it, so a failed write leaves no half
// log.
func Write(dir string, l Log) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("inspect export: %w", err)
	}
	b, err := json.MarshalIndent(l, "", " ")
	if err != nil {
		return "", fmt.Errorf("inspect export: %w", err)
	}
	path := filepath.Join(dir, fileName(l))
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return "", fmt.Errorf("inspect export: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("inspect export: %w", err)
	}
	return path, nil
}

// Export writes the eval logs of recorded run runID (Load) into dir (Write)
// and says on w which files it wrote, with their samples.
func Export(ctx context.Context, src Source, benches bench.Set, runID, dir string, w io.Writer) error {
	logs, err := Load(ctx, src, benches, runID)
	if err != nil {
		return err
	}
	for _, l := range logs {
		path, err := Write(dir, l)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote %s: %d samples\n", path, len(l.Samples))
	}
	return nil
}
