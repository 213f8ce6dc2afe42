package tune

import "os"

// interrupt stops a child: Windows has no SIGINT to send.
func interrupt(p *os.Process) error { return p.Kill() }
