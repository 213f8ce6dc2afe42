package sockopt

import "unsafe"

func unsafePointer(p *int32) unsafe.Pointer { return unsafe.Pointer(p) }
