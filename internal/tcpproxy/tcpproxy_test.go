package tcpproxy_test

import (
	"bufio"
	"net"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/internal/tcpproxy"
)

// echo serves lines back on a loopback port until the test ends.
func echo(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if _, err := c.Write([]byte(line)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}

func roundTrip(c net.Conn, msg string) (string, error) {
	if _, err := c.Write([]byte(msg + "\n")); err != nil {
		return "", err
	}
	return bufio.NewReader(c).ReadString('\n')
}

// TestDownAndUp: through the proxy the server answers; down, an open
// connection breaks and a new one is refused (classified unavailable); up
// again, on the same port, it answers again.
func TestDownAndUp(t *testing.T) {
	p := tcpproxy.Start(t, echo(t))
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	got, err := roundTrip(c, "one")
	require.NoError(t, err)
	require.Equal(t, "one\n", got)

	p.Down()
	_, err = roundTrip(c, "two")
	require.Error(t, err, "the open connection broke")
	_, err = net.Dial("tcp", p.Addr())
	require.Error(t, err)
	require.Equal(t, fault.Unavailable, fault.Of(err).Class, "%v", err)

	require.NoError(t, p.Up())
	c2, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c2.Close()
	got, err = roundTrip(c2, "three")
	require.NoError(t, err)
	require.Equal(t, "three\n", got)
}
