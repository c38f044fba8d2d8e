package sqlitefault_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"

	"github.com/clinevo/clinevo/internal/sqlitefault"
	"github.com/clinevo/clinevo/internal/sqliteuri"
)

// TestWALOfANewFileTogether: connections that put one new file in WAL mode at
// the same moment all succeed, and the file is in WAL mode after. Run as a
// "_pragma=journal_mode(WAL)" of the URI, the same race failed a connection
// with SQLITE_BUSY in most runs of this test.
func TestWALOfANewFileTogether(t *testing.T) {
	const rounds, conns = 120, 6
	ctx := context.Background()
	for r := range rounds {
		path := filepath.Join(t.TempDir(), "t.db")
		dbs := make([]*sql.DB, conns)
		for i := range dbs {
			db, err := sql.Open("sqlite", sqliteuri.File(path, "_pragma=busy_timeout(10000)"))
			require.NoError(t, err)
			t.Cleanup(func() { db.Close() })
			dbs[i] = db
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, conns)
		for i, db := range dbs {
			wg.Go(func() {
				<-start
				errs[i] = sqlitefault.WAL(ctx, db)
			})
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			require.NoError(t, err, "round %d, connection %d", r, i)
		}
		var mode string
		require.NoError(t, dbs[0].QueryRow(`PRAGMA journal_mode`).Scan(&mode))
		require.Equal(t, "wal", mode, "round %d", r)
	}
}

// TestWALEndsWithTheContext: a cancelled context ends WAL with its error.
func TestWALEndsWithTheContext(t *testing.T) {
	db, err := sql.Open("sqlite", sqliteuri.File(filepath.Join(t.TempDir(), "t.db"), ""))
	require.NoError(t, err)
	defer db.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, sqlitefault.WAL(ctx, db), context.Canceled)
}
