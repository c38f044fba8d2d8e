package engine_test

import (
	"fmt"
	"net"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/devserver"
)

// TestTakenPortIsNamed: a server given a port that another listener holds
// does not start; its error names the port and is devserver.ErrPortTaken, on
// which enginetest draws another port. The data directory gets no database.
func TestTakenPortIsNamed(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	dir := t.TempDir()
	_, err = devserver.Start(devserver.Options{DataDir: dir, Port: port})
	require.ErrorIs(t, err, devserver.ErrPortTaken)
	require.ErrorContains(t, err, fmt.Sprintf("devserver: port %d on 127.0.0.1 is taken", port))
	require.NoFileExists(t, dir+"/temporal.db")
}
