package inspectlog

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
