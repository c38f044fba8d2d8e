//go:build !unix

package freeport

import (
	"errors"
	"os"
)

// lockFile is not available here: ports are drawn without reservations.
func lockFile(*os.File) error { return errors.New("freeport: no advisory file locks on this system") }
