package main

import (
	"os"
	"testing"

	"github.com/clinevo/clinevo/engine/enginetest/inprocess"
)

// TestMain has enginetest start its servers in this process: the binary holds
// the embedded server anyway (`clinevo dev`), so a child process would only
// add processor time.
func TestMain(m *testing.M) {
	inprocess.Use()
	os.Exit(m.Run())
}
