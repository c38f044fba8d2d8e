//go:build !unix

package devserver

import (
	"errors"
	"os"
)

// lockFile is not available here: ports are drawn without reservations.
func lockFile(*os.File) error { return errors.New("devserver: no advisory file locks on this system") }
