package main

import (
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/view"
)

// viewTokenEnv holds the viewer's token when --token is not given, so that it
// need not show in the process list.
const viewTokenEnv = "CLINEVO_VIEW_TOKEN"

// viewPort is the viewer's default port: clinevo's own choice, off 8233
// (the Web UI of `temporal server start-dev`) and 7233 (Temporal's gRPC).
const viewPort = 7280

// viewFlags are the flags of `view`.
type viewFlags struct {
	port                  int
	listen, token, tempUI string
}

func (a *app) viewCmd() *cobra.Command {
	var f viewFlags
	cmd := &cobra.Command{
		Use:   "view",
		Short: "A local, read-only web viewer of runs, episodes, memory and experiments, live while streams run",
		RunE:  func(cmd *cobra.Command, _ []string) error { return a.runView(cmd, f) },
	}
	cmd.Flags().IntVar(&f.port, "port", viewPort, "port on 127.0.0.1")
	cmd.Flags().StringVar(&f.listen, "listen", "", "host:port to listen on instead (not loopback: needs --token)")
	cmd.Flags().StringVar(&f.token, "token", "", "token every request must carry (default: env "+viewTokenEnv+")")
	cmd.Flags().StringVar(&f.tempUI, "temporal-ui", "", "base URL of a Temporal Web UI, for links to episode histories")
	backendFlag(cmd.Flags())
	return cmd
}

// runView serves the viewer until interrupted.
func (a *app) runView(cmd *cobra.Command, f viewFlags) error {
	addr := f.listen
	if addr == "" {
		addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(f.port))
	}
	if f.token == "" {
		f.token = os.Getenv(viewTokenEnv)
	}
	if err := view.CheckListen(addr, f.token); err != nil {
		return badInput(err)
	}
	ctx, stop := interrupted()
	defer stop()
	eng, err := a.openReader(ctx)
	if err != nil {
		return err
	}
	defer eng.Close()
	opts, err := a.clientOptions(a.cfg.Temporal)
	if err != nil {
		return err
	}
	// Lazy: the viewer serves the stores while Temporal is down, and
	// its pages say that Temporal did not answer.
	c, err := client.NewLazyClient(opts)
	if err != nil {
		return fmt.Errorf("view: Temporal client: %w", err)
	}
	defer c.Close()
	srv, err := view.New(view.Options{Results: eng.Results, Memory: eng.Memory, Workflows: view.Temporal(c),
		TemporalAddress: a.cfg.Temporal.Address, Namespace: a.cfg.Temporal.Namespace, TemporalUI: f.tempUI, Token: f.token, Listen: addr})
	if err != nil {
		return err
	}
	about := fmt.Sprintf("results %s, Temporal %s", engine.Configured(a.cfg, true).ResultsAt(), a.cfg.Temporal.Address)
	return view.ListenAndServe(ctx, cmd.OutOrStdout(), srv, addr, about, f.token != "")
}
