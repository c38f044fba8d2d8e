// Package inprocess makes enginetest start its Temporal servers in the test
// process, as devserver servers: for a package whose tests start dozens of
// servers, where a child process each (enginetest.Child) would cost more
// processor time than the link of the server into the test binary saves.
package inprocess

import (
	"testing"

	"github.com/clinevo/clinevo/devserver"
	"github.com/clinevo/clinevo/engine/enginetest"
)

// Use makes every later enginetest.Start start its server in this process;
// call it from TestMain.
func Use() { enginetest.SetServer(start) }

func start(t testing.TB, dataDir string, port int) enginetest.Server {
	srv, err := devserver.Start(devserver.Options{DataDir: dataDir, Port: port})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return srv
}
