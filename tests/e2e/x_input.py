"""Synthetic mouse and key input on the X display of $DISPLAY through the XTest extension
(libXtst, which xdotool uses too), from Python by ctypes: each event goes out at once, without
starting a process per event as `xdotool` calls do, so a bench can move the mouse every few
milliseconds and time an input to the millisecond."""
import ctypes
import os
import time


class XInput:
    """One connection to the display. Coordinates are the screen's (a window without a window
    manager sits at 0, 0). Raises OSError when the display or XTest is not there."""

    def __init__(self, display=None):
        self._x = ctypes.CDLL("libX11.so.6")
        self._t = ctypes.CDLL("libXtst.so.6")  # Debian's libxtst6
        self._x.XOpenDisplay.restype = ctypes.c_void_p
        self._x.XOpenDisplay.argtypes = [ctypes.c_char_p]
        self._x.XFlush.argtypes = [ctypes.c_void_p]
        self._x.XCloseDisplay.argtypes = [ctypes.c_void_p]
        self._x.XStringToKeysym.restype = ctypes.c_ulong
        self._x.XStringToKeysym.argtypes = [ctypes.c_char_p]
        self._x.XKeysymToKeycode.restype = ctypes.c_ubyte
        self._x.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
        self._t.XTestFakeMotionEvent.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                                                 ctypes.c_int, ctypes.c_ulong]
        self._t.XTestFakeButtonEvent.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int,
                                                 ctypes.c_ulong]
        self._t.XTestFakeKeyEvent.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int,
                                              ctypes.c_ulong]
        name = display or os.environ.get("DISPLAY", "")
        self._d = self._x.XOpenDisplay(name.encode())
        if not self._d:
            raise OSError(f"cannot open the X display {name!r}")

    def close(self):
        if self._d:
            self._x.XCloseDisplay(self._d)
            self._d = None

    def _flush(self):
        self._x.XFlush(self._d)

    def move(self, x, y):
        """The pointer to (x, y)."""
        self._t.XTestFakeMotionEvent(self._d, -1, int(x), int(y), 0)
        self._flush()

    def button(self, down, button=1):
        self._t.XTestFakeButtonEvent(self._d, button, 1 if down else 0, 0)
        self._flush()

    def click(self, x, y, times=1, gap=0.06):
        """`times` clicks of the left button at (x, y), `gap` s apart (a double click: 2)."""
        self.move(x, y)
        time.sleep(gap)
        for k in range(times):
            self.button(True)
            self.button(False)
            if k + 1 < times:
                time.sleep(gap)

    def ctrl_click(self, x, y, held=0.15):
        """A left click at (x, y) with Control held, each part `held` s long, so that a window
        drawing a frame per event (or a slow one) sees Control down, the press and the release
        in frames of their own."""
        self.move(x, y)
        time.sleep(2 * held)
        ctrl = self._keycode("Control_L")
        self._t.XTestFakeKeyEvent(self._d, ctrl, 1, 0)
        self._flush()
        time.sleep(held)
        self.button(True)
        time.sleep(held)
        self.button(False)
        time.sleep(held)
        self._t.XTestFakeKeyEvent(self._d, ctrl, 0, 0)
        self._flush()

    def _keycode(self, keysym_name):
        code = self._x.XKeysymToKeycode(self._d, self._x.XStringToKeysym(keysym_name.encode()))
        if code == 0:
            raise OSError(f"no key for {keysym_name!r} on this display")
        return code

    def key_event(self, keysym_name, down):
        """Presses (down) or releases one key by its X keysym name: "Return", "minus", "0"."""
        self._t.XTestFakeKeyEvent(self._d, self._keycode(keysym_name), 1 if down else 0, 0)
        self._flush()

    def key(self, keysym_name, held=0.1):
        """Presses and releases one key by its X keysym name, `held` s apart."""
        self.key_event(keysym_name, True)
        time.sleep(held)
        self.key_event(keysym_name, False)

    _NAMES = {"-": "minus", ".": "period"}

    def type_number(self, text, gap=0.02):
        """Types a number's characters (digits, '-', '.', 'e'), `gap` s apart."""
        for ch in text:
            self.key(self._NAMES.get(ch, ch))
            time.sleep(gap)
