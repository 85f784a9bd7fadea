from django.urls import path

from comments import views

urlpatterns = [
    path("post/", views.post_comment, name="comments-post"),
    path("reply/<int:cid>/", views.reply, name="comments-reply"),
]
