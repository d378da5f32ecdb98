/* dev only (docs/performance/diag-busy/README.md, section 5): how the busy
 * scenario's harness and the CPU scale with threads, no CUDA. Build:
 * gcc -O2 harness.c $(pkg-config --cflags --libs gstreamer-1.0
 * gstreamer-app-1.0); run: ./a.out ["identity ! capsfilter ! identity"] */
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <stdio.h>
typedef struct
{
  GstElement *pipe, *src;
  volatile gint stop;
  volatile gint n;
  GThread *t;
  GstSample *s;
} P;
static GstPadProbeReturn
probe (G_GNUC_UNUSED GstPad * pad, G_GNUC_UNUSED GstPadProbeInfo * i,
    gpointer d)
{
  P *p = d;
  g_atomic_int_inc (&p->n);
  return GST_PAD_PROBE_OK;
}

static gpointer
feed (gpointer d)
{
  P *p = d;
  while (!g_atomic_int_get (&p->stop))
    gst_app_src_push_sample (GST_APP_SRC (p->src), p->s);
  return NULL;
}

static volatile gint spin_stop;
static gint64 spin_n[64];
static gpointer
spin (gpointer d)
{
  gint64 *n = d;
  volatile guint64 x = 1;
  while (!g_atomic_int_get (&spin_stop)) {
    for (int i = 0; i < 1000; i++)
      x = x * 6364136223846793005ULL + 1;
    (*n)++;
  } return NULL;
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  const char *mid = argc > 1 ? argv[1] : "identity ! capsfilter ! identity";
  GstCaps *caps =
      gst_caps_from_string
      ("video/x-raw,format=NV12,width=1920,height=1080,framerate=0/1");
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 1920 * 1080 * 3 / 2, NULL);
  GstSample *s = gst_sample_new (buf, caps, NULL, NULL);
  int ns[] = { 1, 2, 4, 8, 16 };
  for (int rep = 0; rep < 3; rep++)
    for (int k = 0; k < 5; k++) {
      int n = ns[k];
      GThread *t[64];
      spin_stop = 0;
      for (int i = 0; i < n; i++) {
        spin_n[i] = 0;
        t[i] = g_thread_new ("s", spin, &spin_n[i]);
      }
      g_usleep (500000);
      spin_stop = 1;
      gint64 tot = 0;
      for (int i = 0; i < n; i++) {
        g_thread_join (t[i]);
        tot += spin_n[i];
      }
      printf ("cpu N=%d total %.0f per-thread %.0f\n", n, tot / 0.5,
          tot / 0.5 / n);
    }
  for (int rep = 0; rep < 3; rep++)
    for (int k = 0; k < 4; k++) {
      int n = ns[k];
      P p[64];
      for (int i = 0; i < n; i++) {
        gchar *desc =
            g_strdup_printf
            ("appsrc name=src format=time block=true max-buffers=2 ! %s ! fakesink name=sink sync=false",
            mid);
        p[i].pipe = gst_parse_launch (desc, NULL);
        g_free (desc);
        p[i].src = gst_bin_get_by_name (GST_BIN (p[i].pipe), "src");
        GstElement *sink = gst_bin_get_by_name (GST_BIN (p[i].pipe), "sink");
        GstPad *pad = gst_element_get_static_pad (sink, "sink");
        gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, probe, &p[i], NULL);
        p[i].n = 0;
        p[i].stop = 0;
        p[i].s = s;
        gst_element_set_state (p[i].pipe, GST_STATE_PLAYING);
        p[i].t = g_thread_new ("f", feed, &p[i]);
      }
      g_usleep (200000);
      gint64 a = 0, b = 0;
      for (int i = 0; i < n; i++)
        a += g_atomic_int_get (&p[i].n);
      g_usleep (500000);
      for (int i = 0; i < n; i++)
        b += g_atomic_int_get (&p[i].n);
      printf ("harness N=%d aggregate %.0f fps\n", n, (b - a) / 0.5);
      for (int i = 0; i < n; i++) {
        p[i].stop = 1;
      }
      for (int i = 0; i < n; i++) {
        gst_app_src_end_of_stream (GST_APP_SRC (p[i].src));
        g_thread_join (p[i].t);
        gst_element_set_state (p[i].pipe, GST_STATE_NULL);
        gst_object_unref (p[i].src);
        gst_object_unref (p[i].pipe);
      }
    }
  return 0;
}
