package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/results/sqlite"
)

// TestGarbageFileIsNamed (issue 37, item 10): a results.db that is no
// SQLite database is refused by the writer and the reader with what is
// wrong and where; the reader used to ask for a migration ("schema version
// 0 is older than this clinevo reads") that could not help. The file is
// left as it was.
func TestGarbageFileIsNamed(t *testing.T) {
	p := filepath.Join(t.TempDir(), "results.db")
	const garbage = "this is not a database at all, just some text\n"
	require.NoError(t, os.WriteFile(p, []byte(garbage), 0o644))
	want := "results: open " + p + ": " + p + ` is not a SQLite database (it starts with "this is not a da"): ` +
		"restore it from a backup, or point the data directory (--data-dir) at the one the worker writes"
	_, err := sqlite.Open(context.Background(), p)
	require.EqualError(t, err, want)
	require.Equal(t, fault.Schema, fault.Of(err).Class, "not an outage to wait out")
	_, err = sqlite.OpenReader(context.Background(), p)
	require.EqualError(t, err, want)
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, garbage, string(b))
}
