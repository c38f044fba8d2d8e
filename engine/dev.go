package engine

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/devserver"
)

// Dev is what `clinevo dev` runs: an embedded Temporal server on the data
// directory and, unless NoWorker, a worker of the same process on it.
type Dev struct {
	Worker                     // its stores, namespace, task queue, dialer and log
	Server   devserver.Options // DataDir and Namespace: the worker's
	NoWorker bool
}

// Run runs the server, and the worker, until ctx ends. While it runs, the
// frontend's address is in the data directory's config.DevFile, which every
// other command on that directory reads; out says where everything is, and
// errOut that the file could not be removed at the end.
func (d Dev) Run(ctx context.Context, out, errOut io.Writer) error {
	srv, err := devserver.Start(d.Server)
	if err != nil {
		return err
	}
	defer srv.Stop()
	dir := d.Server.DataDir
	if err := config.WriteDev(dir, config.DevEndpoint{Address: srv.Address(), Namespace: d.Temporal.Namespace, PID: os.Getpid()}); err != nil {
		return err
	}
	defer func() {
		if err := config.RemoveDev(dir, srv.Address()); err != nil {
			fmt.Fprintln(errOut, "clinevo dev:", err)
		}
	}()
	d.write(out, srv)
	return d.serve(ctx, out, srv.Address())
}

// serve adds the search attributes the namespace lacks and runs the worker
// (or, with NoWorker, waits) until ctx ends.
func (d Dev) serve(ctx context.Context, out io.Writer, address string) error {
	c, err := d.Dial(Embedded(address, d.Temporal))
	if err != nil {
		return err
	}
	defer c.Close()
	// A data dir made by an older clinevo lacks the newer attributes.
	if err := devserver.AddMissingSearchAttributes(ctx, c, d.Temporal.Namespace); err != nil {
		return err
	}
	if d.NoWorker {
		fmt.Fprintln(out, "worker             not started (--worker=false)")
		<-ctx.Done()
		return nil
	}
	eng, err := Open(ctx, d.Stores)
	if err != nil {
		return err
	}
	defer eng.Close()
	fmt.Fprintf(out, "worker             task queue %s\n", d.Temporal.TaskQueue)
	return eng.RunWorker(ctx, c, d.Temporal.TaskQueue, d.Log)
}

// write says where the embedded server and its files are.
func (d Dev) write(out io.Writer, srv *devserver.Server) {
	p, dir := srv.Ports(), d.Server.DataDir
	fmt.Fprintf(out, "Temporal frontend  %s (namespace %s)\n", srv.Address(), d.Temporal.Namespace)
	fmt.Fprintf(out, "other ports        http %d, history %d, matching %d, system worker %d (on 127.0.0.1)\n", p.HTTP, p.History, p.Matching, p.Worker)
	fmt.Fprintf(out, "address file       %s (read by every clinevo command on this data dir)\n", filepath.Join(dir, config.DevFile))
	fmt.Fprintf(out, "data directory     %s\n", dir)
	fmt.Fprintf(out, "server log         %s\n", filepath.Join(dir, "temporal.log"))
	fmt.Fprintf(out, "results            %s\n", d.Stores.ResultsAt())
	fmt.Fprintf(out, "temporal CLI       temporal --address %s workflow list (or: clinevo episode list --run RUN)\n", srv.Address())
}
