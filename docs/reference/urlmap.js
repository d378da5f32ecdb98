// Where the references of the namespaces the API uses live, for
// gi-docgen's links to types of other libraries
baseURLs = [
  [ 'GLib', 'https://docs.gtk.org/glib/' ],
  [ 'GObject', 'https://docs.gtk.org/gobject/' ],
]
