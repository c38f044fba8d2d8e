package engine_test

import (
	"fmt"
	"net"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/devserver"
	"github.com/clinevo/clinevo/engine/enginetest"
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

// TestTwoDevServersOnOneDataDir (issue 37, item 4): a second embedded
// server on a data directory a running one holds does not start (it used to
// share temporal.db with the first, shard ranges fighting); its error names
// the process that holds the directory. Once the first stops, the directory
// is free.
func TestTwoDevServersOnOneDataDir(t *testing.T) {
	dir := t.TempDir()
	first, err := devserver.Start(devserver.Options{DataDir: dir, Port: enginetest.FreePort(t)})
	require.NoError(t, err)
	_, err = devserver.Start(devserver.Options{DataDir: dir, Port: enginetest.FreePort(t)})
	require.ErrorContains(t, err, fmt.Sprintf("devserver: data directory %s is in use by another clinevo server (pid %d, started ", dir, os.Getpid()))
	require.ErrorContains(t, err, "lock "+dir+"/temporal.lock): stop it, or give this one another data directory (--data-dir)")
	conn, err := net.Dial("tcp", first.Address())
	require.NoError(t, err, "the first server still serves")
	conn.Close()
	first.Stop()
	second, err := devserver.Start(devserver.Options{DataDir: dir, Port: enginetest.FreePort(t)})
	require.NoError(t, err, "a stopped server gives its directory up")
	second.Stop()
}
