package sqliteuri_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"

	"github.com/clinevo/clinevo/internal/sqliteuri"
)

// TestPathOpensThatFile: each directory name that a URI would cut or decode
// opens its own file, at exactly that path, with the query still applied; the
// directory listing holds those files and nothing else.
func TestPathOpensThatFile(t *testing.T) {
	root := t.TempDir()
	names := []string{"run#1", "run#2", "run?x=1", "100%25", "100%", "plain"}
	for i, name := range names {
		dir := filepath.Join(root, name)
		require.NoError(t, os.Mkdir(dir, 0o755))
		file := filepath.Join(dir, "t.db")
		db, err := sql.Open("sqlite", sqliteuri.File(file, "_pragma=journal_mode(WAL)"))
		require.NoError(t, err)
		var mode string
		require.NoError(t, db.QueryRow(`PRAGMA journal_mode`).Scan(&mode))
		require.Equal(t, "wal", mode, "%s: the query reached the driver", name)
		_, err = db.Exec(`CREATE TABLE t(n INTEGER)`)
		require.NoError(t, err, "%s: a fresh file (no other name's table)", name)
		_, err = db.Exec(`INSERT INTO t VALUES(?)`, i)
		require.NoError(t, err)
		require.NoError(t, db.Close())
		_, err = os.Stat(file)
		require.NoError(t, err, "%s: the file is where the path says", name)
	}
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	require.ElementsMatch(t, names, got, "no file was opened beside the directories")
}

func TestPath(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/a/t.db":      "/tmp/a/t.db",
		"/tmp/a#1/t.db":    "/tmp/a%231/t.db",
		"/tmp/a?b/t.db":    "/tmp/a%3fb/t.db",
		"/tmp/100%/t.db":   "/tmp/100%25/t.db",
		"//tmp/a/t.db":     "/tmp/a/t.db",
		"rel/dir&x=y/t.db": "rel/dir&x=y/t.db",
	} {
		require.Equal(t, want, sqliteuri.Path(in), in)
	}
}
