package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/devserver"
	"github.com/clinevo/clinevo/engine/enginetest"
)

// TestDataDirWithURICharacters: a data directory whose name holds "#", "?"
// or "%" keeps its database inside it. Cut at the "#", the server would open
// a file named "run" beside the directory, which a server on "run#2" opens
// too.
func TestDataDirWithURICharacters(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "run#1?mode=ro%41")
	port := enginetest.FreePort(t)
	srv, err := devserver.Start(devserver.Options{DataDir: dir, Port: port})
	require.NoError(t, err)
	t.Cleanup(srv.Stop)
	c, err := client.Dial(client.Options{HostPort: srv.Address()})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	missing, err := devserver.MissingSearchAttributes(context.Background(), c, "default")
	require.NoError(t, err)
	require.Empty(t, missing, "the server reads the namespace it was given")

	info, err := os.Stat(filepath.Join(dir, "temporal.db"))
	require.NoError(t, err, "the database is in the data dir")
	require.Positive(t, info.Size())
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing beside the data dir: %v", entries)
	require.Equal(t, filepath.Base(dir), entries[0].Name())
}
