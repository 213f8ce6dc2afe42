package apply

import "io/fs"

// owner: Windows has no uid; apply does not change hosts there.
func owner(fs.FileInfo) (int, bool) { return 0, false }
