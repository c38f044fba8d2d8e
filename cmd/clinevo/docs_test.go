package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCLIDocsAreCurrent: docs/cli holds exactly what cobra's generator
// writes from today's commands. When it fails, rewrite the pages with
// `go generate ./cmd/clinevo` and commit them.
func TestCLIDocsAreCurrent(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, writeCLIDocs(dir))
	want := readPages(t, dir)
	got := readPages(t, filepath.Join("..", "..", cliDocsDir))
	for name, page := range want {
		require.Equal(t, page, got[name], "%s/%s is out of date: run go generate ./cmd/clinevo", cliDocsDir, name)
	}
	for name := range got {
		_, ok := want[name]
		require.True(t, ok, "%s/%s documents no command: run go generate ./cmd/clinevo", cliDocsDir, name)
	}
}

func readPages(t *testing.T, dir string) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.md"))
	require.NoError(t, err)
	out := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		out[filepath.Base(p)] = string(b)
	}
	return out
}
