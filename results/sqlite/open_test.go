package sqlite_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/results/sqlite"
)

// TestOpenTogether: stores that open one new file at the same moment all open
// it. SQLite changes a file's journal mode under an exclusive lock, and two
// connections that each hold the shared lock and want that one can get
// SQLITE_BUSY at once, whatever busy_timeout says; Open must wait that out.
// (The processes conformance test met it about once in 40 runs.)
func TestOpenTogether(t *testing.T) {
	const rounds, openers = 30, 6
	ctx := context.Background()
	for r := range rounds {
		path := filepath.Join(t.TempDir(), "results.db")
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, openers)
		for i := range openers {
			wg.Go(func() {
				<-start
				s, err := sqlite.Open(ctx, path)
				if err == nil {
					err = s.Close()
				}
				errs[i] = err
			})
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			require.NoError(t, err, "round %d, opener %d", r, i)
		}
	}
}
